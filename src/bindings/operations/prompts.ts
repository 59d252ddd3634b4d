/**
 * `mcp_prompt`: a server's prompt filled with arguments (`prompts/get`), its messages as the server
 * sent them. The name is checked against the server's prompt list first (MCP_UNKNOWN_PROMPT names
 * the closest ones), and required arguments before anything is sent.
 */
import { answerInputRounds } from '../connection/input-rounds.js';
import { RequestOwners } from '../connection/request-owners.js';
import type { Prompt } from '@modelcontextprotocol/client';
import { BerryError } from '../../common/errors.js';
import type { ServerConnection } from '../connection/connection.js';
import type { OperationOptions, PromptRequest, PromptResult } from '../contract.js';
import { nameList } from '../../common/closest-names.js';
import type { OperationContext } from './context.js';
import { validatePromptRequest } from './arguments/validate-request.js';

/** `mcp_prompt` on the connection for the request's server. */
export function prompt(context: OperationContext, request: PromptRequest, options: OperationOptions): Promise<PromptResult> {
  const valid = validatePromptRequest(request);
  return context.withEntry(valid.server, (connection) => getPrompt(connection, valid, options), options.signal);
}

export async function getPrompt(
  connection: ServerConnection,
  request: Required<PromptRequest>,
  { signal, onElicitation }: OperationOptions,
): Promise<PromptResult> {
  const { server, name } = request;
  if (!connection.catalog.supports('prompts')) {
    throw new BerryError('MCP_UNKNOWN_PROMPT', `Server "${server}" publishes no prompts (it does not declare the prompts capability).`);
  }
  const prompt = await findPrompt(connection, server, name, signal);
  const args = promptArguments(server, prompt, request.arguments);
  return connection.send(
    `prompts/get "${name}"`,
    (options) =>
      answerInputRounds(
        connection,
        onElicitation,
        (extra, allow) => connection.client.getPrompt({ name, arguments: args, ...extra, ...RequestOwners.tag(onElicitation) }, { ...options, ...allow }),
        options.signal,
      ),
    signal,
    server,
  );
}

async function findPrompt(connection: ServerConnection, server: string, name: string, signal: AbortSignal | undefined): Promise<Prompt> {
  const listed = await connection.catalog.list('prompts', signal, server);
  const found = listed.items.find((p) => p.name === name);
  if (found) return found;
  throw new BerryError(
    'MCP_UNKNOWN_PROMPT',
    `Server "${server}" has no prompt "${name}". Its prompts: ${nameList(
      name,
      listed.items.map((p) => p.name),
    )}.`,
  );
}

/** Prompt arguments are strings in MCP: numbers and booleans are converted, anything else refused. */
function promptArguments(server: string, prompt: Prompt, given: Readonly<Record<string, unknown>>): Record<string, string> {
  const declared = prompt.arguments ?? [];
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else {
      throw new BerryError(
        'MCP_INVALID_ARGUMENT',
        `mcp_prompt: argument "${key}" of prompt "${prompt.name}" on server "${server}" must be a string (prompt arguments are strings).`,
      );
    }
  }
  const missing = declared.filter((a) => a.required === true && !(a.name in out)).map((a) => a.name);
  if (missing.length > 0) {
    const all = declared.map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    throw new BerryError(
      'MCP_INVALID_ARGUMENT',
      `mcp_prompt: prompt "${prompt.name}" on server "${server}" needs ${missing.map((m) => `"${m}"`).join(', ')}. Its arguments: ${all}.`,
    );
  }
  return out;
}
