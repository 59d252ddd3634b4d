/**
 * List changes on a 2026-07-28 connection: the server has no channel of its own to the client, so
 * its `list_changed` notifications come over a `subscriptions/listen` stream, opened once the era
 * is known and reopened when it drops. A stream that will not stay open is abandoned after
 * MAX_ATTEMPTS tries in a row, with a warning naming the server; the lists are then only as fresh
 * as their `ttlMs` and the next connection.
 */
import type { McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { ServerConnection } from './connection.js';

/** Opens in a row that may fail (or close at once) before the stream is given up. */
export const MAX_ATTEMPTS = 3;
/** A stream open this long counts as having stayed open: its next drop starts a new count. */
const STABLE_MS = 30_000;
const RETRY_DELAY_MS = 500;

/** Opens the stream for what the server says can change; nothing when it says nothing can. */
export function listenForChanges(connection: ServerConnection): void {
  const capabilities = connection.client.getServerCapabilities();
  const filter: SubscriptionFilter = {
    ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  let failures = 0;
  const server = connection.config.name;
  const open = async (): Promise<void> => {
    if (connection.dead) return;
    let subscription: McpSubscription;
    try {
      subscription = await connection.client.listen(filter, { timeout: connection.config.timeoutMs });
    } catch (error) {
      retry(`it was refused: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`);
      return;
    }
    const opened = Date.now();
    const how = await subscription.closed;
    if (how !== 'remote' || connection.dead) return;
    if (Date.now() - opened >= STABLE_MS) failures = 0;
    // Changes sent while it was down are lost: list again on next use.
    connection.catalog.invalidate('tools');
    connection.catalog.invalidate('prompts');
    connection.catalog.invalidate('resources');
    retry('it closed');
  };
  const retry = (why: string): void => {
    if (connection.dead) return;
    failures += 1;
    if (failures >= MAX_ATTEMPTS) {
      connection.log({
        server,
        kind: 'error',
        message: `the subscriptions/listen stream of server "${server}" did not stay open (${MAX_ATTEMPTS} attempts; last: ${connection.redact(why)}): given up, so its list changes are no longer seen on this connection`,
      });
      return;
    }
    setTimeout(() => void open(), RETRY_DELAY_MS * failures).unref();
  };
  void open();
}
