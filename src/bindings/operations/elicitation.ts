/**
 * Servers' `elicitation/create` requests: declared as a client capability and answered by the
 * `onElicitation` of the call that caused it, else the embedder's; declined (never left hanging)
 * when there is no handler, it fails, or the request cannot be attributed.
 */
import type { Client, ClientCapabilities, Transport } from '@modelcontextprotocol/client';
import type { ElicitationHandler, ElicitationParams, ElicitationResult } from '../handlers.js';
import type { LogSink } from '../log.js';
import type { RequestOwners } from '../connection/request-owners.js';
import type { ServerTextGate } from '../server-text/gate.js';
import { MAX_OPEN_QUESTIONS } from '../server-text/limits.js';

/** Form mode with the schema's defaults applied to accepted answers, and URL mode. */
export const ELICITATION_CAPABILITIES = {
  elicitation: { form: { applyDefaults: true }, url: {} },
} as const satisfies ClientCapabilities;

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

/** Where a connection's elicitations come from and go: its server's name, log and gate. */
export interface ElicitationSource {
  readonly server: string;
  readonly log: LogSink;
  /** Every elicitation is shown through it: masked, bounded, or declined unshown. */
  readonly gate: ServerTextGate;
}

export interface ElicitationWiring extends ElicitationSource {
  readonly handler: ElicitationHandler | undefined;
}

/**
 * Routes the client's `elicitation/create` requests to the handler of the caller whose request
 * caused it (see RequestOwners); one that cannot be attributed is declined, and so is one past
 * MAX_OPEN_QUESTIONS open for the same handler.
 */
export function installElicitation(client: Client, transport: Transport, source: ElicitationSource, owners: RequestOwners): void {
  owners.track(transport);
  const open = new Map<ElicitationHandler | undefined, number>();
  // Callers told (on the log) that their questions were declined for the cap, until they have none open: one line per burst.
  const told = new Set<ElicitationHandler | undefined>();
  // The 2025 era's server request; in 2026-07-28 elicitations come in input_required results (input-rounds.ts).
  client.setRequestHandler('elicitation/create', async (request, context) => {
    // Looked up at once: the relation is dropped when the answer is sent.
    const owner = owners.ownerOf(context.mcpReq.id);
    if (owner === 'unattributed') {
      const why = 'calls of several callers were in flight on the connection and the request named none of them';
      return decline(request.params, source, why);
    }
    const { handler } = owner;
    const asked = open.get(handler) ?? 0;
    if (asked >= MAX_OPEN_QUESTIONS) {
      if (told.has(handler)) return { action: 'decline' } as const;
      told.add(handler);
      return decline(
        request.params,
        source,
        `${MAX_OPEN_QUESTIONS} questions of this caller were already open; more are declined unlogged until they are answered`,
      );
    }
    open.set(handler, asked + 1);
    try {
      return await answerElicitation(request.params, { ...source, handler }, context.mcpReq.signal);
    } finally {
      const left = (open.get(handler) ?? 1) - 1;
      if (left > 0) open.set(handler, left);
      else {
        open.delete(handler);
        told.delete(handler);
      }
    }
  });
}

/** One answer for one request: the handler's (shown through the gate), with defaults applied, or a logged decline. */
export async function answerElicitation(params: ElicitationParams, wiring: ElicitationWiring, signal: AbortSignal): Promise<ElicitationResult> {
  const { server, handler } = wiring;
  if (!handler) return decline(params, wiring, 'no elicitation handler');
  const shown = wiring.gate.elicitation(params);
  if ('refused' in shown) return decline(params, wiring, shown.refused);
  let result: ElicitationResult;
  try {
    result = await handler(shown.params, { server, signal });
  } catch (error) {
    return decline(params, wiring, `the handler failed: ${oneLine(error instanceof Error ? error.message : String(error))}`);
  }
  if (typeof result !== 'object' || result === null || !ACTIONS.has(result.action)) {
    return decline(params, wiring, 'the handler answered neither accept, decline nor cancel');
  }
  if (result.action !== 'accept' || params.mode === 'url') return { action: result.action };
  return { action: 'accept', content: withDefaults(params.requestedSchema, result.content) };
}

function decline(params: ElicitationParams, { server, log }: Pick<ElicitationWiring, 'server' | 'log'>, why: string): ElicitationResult {
  // The log masks the message; an input round's params are unchecked, so it may be no string.
  const message = typeof params?.message === 'string' ? params.message : '';
  log({ server, kind: 'elicitation', message: `declined an elicitation (${why}): ${oneLine(message)}` });
  return { action: 'decline' };
}

type Content = NonNullable<ElicitationResult['content']>;

/** The answer with every property the person left out filled from the requested schema's default. */
export function withDefaults(schema: { readonly properties: Readonly<Record<string, unknown>> }, content: Content | undefined): Content {
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
