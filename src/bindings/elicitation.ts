/**
 * Servers' `elicitation/create` requests: declared as a client capability and answered by the
 * embedder's `onElicitation`; declined (never left hanging) when there is no handler or it fails.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationHandler, ElicitationParams, ElicitationResult } from './handlers.js';
import type { LogSink } from './log.js';

/** Form mode with the schema's defaults applied to accepted answers, and URL mode. */
export const ELICITATION_CAPABILITIES = {
  elicitation: { form: { applyDefaults: true }, url: {} },
} as const satisfies ClientCapabilities;

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

export interface ElicitationWiring {
  readonly server: string;
  readonly handler: ElicitationHandler | undefined;
  readonly log: LogSink;
}

/** Routes the client's `elicitation/create` requests to the handler. */
export function installElicitation(client: Client, wiring: ElicitationWiring): void {
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    answerElicitation(request.params, wiring, extra.signal),
  );
}

/** One answer for one request: the handler's, with defaults applied, or a logged decline. */
export async function answerElicitation(
  params: ElicitationParams,
  wiring: ElicitationWiring,
  signal: AbortSignal,
): Promise<ElicitationResult> {
  const { server, handler, log } = wiring;
  const decline = (why: string): ElicitationResult => {
    log({ server, kind: 'elicitation', message: `declined an elicitation (${why}): ${oneLine(params.message)}` });
    return { action: 'decline' };
  };
  if (!handler) return decline('no elicitation handler');
  let result: ElicitationResult;
  try {
    result = await handler(params, { server, signal });
  } catch (error) {
    return decline(`the handler failed: ${oneLine(error instanceof Error ? error.message : String(error))}`);
  }
  if (typeof result !== 'object' || result === null || !ACTIONS.has(result.action)) {
    return decline('the handler answered neither accept, decline nor cancel');
  }
  if (result.action !== 'accept' || params.mode === 'url') return { action: result.action };
  return { action: 'accept', content: withDefaults(params.requestedSchema, result.content) };
}

type Content = NonNullable<ElicitationResult['content']>;

/** The answer with every property the person left out filled from the requested schema's default. */
export function withDefaults(
  schema: { readonly properties: Readonly<Record<string, unknown>> },
  content: Content | undefined,
): Content {
  const filled: Content = { ...content };
  for (const [name, property] of Object.entries(schema.properties)) {
    if (Object.hasOwn(filled, name) || typeof property !== 'object' || property === null) continue;
    if (!Object.hasOwn(property, 'default')) continue;
    const value = (property as { default?: unknown }).default;
    if (isContentValue(value)) filled[name] = value;
  }
  return filled;
}

function isContentValue(value: unknown): value is Content[string] {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string');
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
