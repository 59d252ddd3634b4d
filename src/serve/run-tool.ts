import type { Tool } from '@modelcontextprotocol/server';
import type { LoadedConfig } from '../config/index.js';
import type { Host } from '../host.js';
import { describeRun, type DescriptionLimits } from './description/description.js';
import { RUN_OUTPUT_SCHEMA } from './result.js';

/** The `run` tool as tools/list shows it: its description names the configured servers as they are now. */
export async function runTool(
  host: Host,
  loaded: LoadedConfig | Error,
  limits: DescriptionLimits,
  options: { readonly signatures: boolean; readonly signal: AbortSignal },
): Promise<Tool> {
  return {
    name: 'run',
    title: 'Run a script against MCP servers',
    description: await describeRun(host, loaded, limits, options),
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'JavaScript or TypeScript: the body of an async function' },
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
