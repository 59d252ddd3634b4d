/**
 * A run behind its check: certain mistakes give a failed record (SCRIPT_CHECK_FAILED, nothing
 * started, nothing sent), warnings go to the run's log ahead of the script's own entries (and to
 * `onOutput` as they would stream). Shaped like the runtime's RunRecord without importing it: the
 * sandbox is a layer of its own.
 */
import type { CheckProblem, ScriptCheck } from './check-script.js';

interface Log {
  readonly level: 'warn';
  readonly text: string;
}

interface RecordShape {
  readonly logs: readonly { readonly level: string; readonly text: string }[];
}

/** What a refused run's record says. */
export interface RefusedRecord {
  readonly ok: false;
  readonly outputs: readonly never[];
  readonly logs: readonly Log[];
  readonly error: {
    readonly name: 'BerryError';
    readonly code: 'SCRIPT_CHECK_FAILED';
    readonly message: string;
    readonly line: number;
    readonly column: number;
    readonly problems: readonly CheckProblem[];
  };
  readonly durationMs: number;
  readonly calls: 0;
}

/** At most this many mistakes are listed in the message (all of them are in `problems`, up to MAX_KEPT). */
const MAX_LISTED = 20;
const MAX_KEPT = 200;
const MAX_ENTRY_CHARS = 600;

export async function runChecked<R extends RecordShape>(
  check: Promise<ScriptCheck>,
  start: () => Promise<R>,
  onOutput: ((entry: { readonly kind: 'log'; readonly log: Log }) => void) | undefined,
): Promise<R | RefusedRecord> {
  const started = performance.now();
  // A check that breaks lets the run go on unchecked: it must never be why a working script fails.
  const { problems, warnings, typeWarnings } = await check.catch(() => ({
    problems: [],
    warnings: ['berry-mcp could not check this script before running it.'],
    typeWarnings: undefined,
  }));
  if (problems.length > 0) return refused(problems, logsOf(warnings), performance.now() - started);
  // Before the run, not beside it: the checker would hold the thread that answers the run's calls.
  const logs = logsOf([...warnings, ...((await typeWarnings?.catch(() => [])) ?? [])]);
  for (const log of logs) onOutput?.({ kind: 'log', log });
  const record = await start();
  return logs.length === 0 ? record : { ...record, logs: [...logs, ...record.logs] };
}

const logsOf = (texts: readonly string[]): Log[] => texts.map((text) => ({ level: 'warn', text }));

function refused(problems: readonly CheckProblem[], logs: readonly Log[], durationMs: number): RefusedRecord {
  const first = problems[0]!;
  const kept = problems.slice(0, MAX_KEPT).map((p) => ({ ...p, message: clip(p.message) }));
  return {
    ok: false,
    outputs: [],
    logs,
    error: {
      name: 'BerryError',
      code: 'SCRIPT_CHECK_FAILED',
      message: checkMessage(kept, problems.length),
      line: first.line,
      column: first.column,
      problems: kept,
    },
    durationMs,
    calls: 0,
  };
}

/** The mistakes, one a line (`- 3:40 CHECK_UNKNOWN_TOOL: …`), the first MAX_LISTED of them. */
export function checkMessage(problems: readonly CheckProblem[], total: number): string {
  const lines = problems.slice(0, MAX_LISTED).map((p) => `- ${p.line}:${p.column} ${p.code}: ${p.message}`);
  if (total > MAX_LISTED) lines.push(`- and ${total - MAX_LISTED} more`);
  const count = total === 1 ? 'a mistake' : `${total} mistakes`;
  return `The script was not run: checked against the servers before its first call, it has ${count} that would fail (line:column in the script). Nothing was sent to any server. Fix ${total === 1 ? 'it' : 'them all'}, then run it again:\n${lines.join('\n')}`;
}

function clip(text: string): string {
  return text.length <= MAX_ENTRY_CHARS ? text : `${text.slice(0, MAX_ENTRY_CHARS)}…`;
}
