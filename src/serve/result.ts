import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RunError, RunLog, RunRecord } from '../runtime/index.js';

const PRETTY_MAX_CHARS = 16 * 1024;

/** What `structuredContent` carries: the run record without its outputs and logs (they are the content blocks). */
export interface RunSummary {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: RunError;
  readonly durationMs: number;
  readonly calls: number;
}

/** The `outputSchema` of `run`, matching RunSummary. */
export const RUN_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'false when the script threw or hit a limit' },
    result: { description: "the script's return value" },
    error: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        message: { type: 'string' },
        code: { type: 'string' },
        line: { type: 'number' },
        column: { type: 'number' },
      },
      required: ['name', 'message'],
    },
    durationMs: { type: 'number' },
    calls: { type: 'number', description: 'tool calls the script made' },
    state: { type: 'string', description: 'the state id to pass back as run\'s "state" argument (2026-07-28)' },
    stateError: {
      type: 'object',
      description: "the run's state was not kept (the shared store failed): a next run cannot load() what this one stored",
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['ok', 'durationMs', 'calls'],
} as const;

/**
 * A run record as a tool result: each output as a block in order, the return value as JSON, the
 * error (isError) in a form a model can act on, then the logs as one final text block.
 */
export function runResult(record: RunRecord): CallToolResult {
  const content: CallToolResult['content'] = [];
  for (const output of record.outputs) {
    content.push(output.type === 'text' ? { type: 'text', text: output.text } : { type: 'image', data: output.data, mimeType: output.mimeType });
  }
  if (record.result !== undefined) content.push({ type: 'text', text: resultText(record.result) });
  if (record.error) content.push({ type: 'text', text: errorLine(record.error) });
  if (record.logs.length > 0) content.push({ type: 'text', text: logsText(record.logs) });
  // Spec: a tool result needs at least one block for clients that only read content.
  if (content.length === 0) content.push({ type: 'text', text: '(no output; the script returned undefined)' });
  const structured: RunSummary = {
    ok: record.ok,
    ...(record.result === undefined ? {} : { result: record.result }),
    ...(record.error ? { error: record.error } : {}),
    durationMs: record.durationMs,
    calls: record.calls,
  };
  return { content, structuredContent: structured as unknown as Record<string, unknown>, ...(record.ok ? {} : { isError: true }) };
}

/** `TypeError [SCRIPT_ERROR] at line 4, column 3: x is not a function`. */
export function errorLine(error: RunError): string {
  const code = error.code ? ` [${error.code}]` : '';
  const where = error.line === undefined ? '' : ` at line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`}`;
  return `${error.name}${code}${where}: ${error.message}`;
}

/** A bad `run` request (wrong field, out-of-range timeout): a tool error the model can correct. */
export function inputError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Invalid arguments for run: ${message}` }], isError: true };
}

/** Pretty JSON while short; compact past PRETTY_MAX_CHARS, so indentation never multiplies a value near its budget. */
function resultText(value: unknown): string {
  const pretty = JSON.stringify(value, null, 2);
  return pretty.length <= PRETTY_MAX_CHARS ? pretty : JSON.stringify(value);
}

function logsText(logs: readonly RunLog[]): string {
  const lines = logs.map((log) => (log.level === 'log' ? log.text : `[${log.level}] ${log.text}`));
  return `console:\n${lines.join('\n')}`;
}
