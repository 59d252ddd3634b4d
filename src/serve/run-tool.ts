import type { Tool } from '@modelcontextprotocol/server';
import { isBerryError } from '../common/errors.js';
import type { LoadedConfig } from '../config/index.js';
import type { Host } from '../host.js';
import { runDescription, serverLines, type DescriptionLimits } from './description.js';
import { RUN_OUTPUT_SCHEMA } from './result.js';

/** The `run` tool as tools/list shows it: its description names the configured servers as they are now. */
export async function runTool(host: Host, loaded: LoadedConfig | Error, limits: DescriptionLimits, signal: AbortSignal): Promise<Tool> {
  const lines =
    loaded instanceof Error
      ? [{ name: '(mcp.json)', summary: `cannot be read: ${isBerryError(loaded) ? loaded.code : 'error'}; every call will fail until it is fixed` }]
      : await serverLines(host, loaded, signal);
  return {
    name: 'run',
    title: 'Run a script against MCP servers',
    description: runDescription(lines, limits),
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'JavaScript: the body of an async function' },
        timeoutSeconds: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: limits.maxTimeoutSeconds,
          description: `wall-clock limit of the run (default ${limits.defaultTimeoutSeconds})`,
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    outputSchema: RUN_OUTPUT_SCHEMA as unknown as Tool['outputSchema'],
    annotations: { title: 'Run a script', readOnlyHint: false, openWorldHint: true },
  };
}
