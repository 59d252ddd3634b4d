import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createMcpHost, type LogEvent, type McpHost } from '../../src/bindings/index.js';
import type { ElicitationHandler, ElicitationParams } from '../../src/bindings/handlers.js';
import { type HttpFixture, startHttpFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { useTestHost } from '../support/test-host.js';
import { waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

/** The fixture's `elicit` tool returns the client's answer as JSON text. */
async function elicit(host: McpHost, mode: 'form' | 'url' = 'form'): Promise<unknown> {
  const result = await host.call({ server: 'fixture', tool: 'elicit', arguments: { mode } });
  return JSON.parse((result.content[0] as { text: string }).text);
}

describe('elicitation (server-initiated elicitation/create over HTTP)', function () {
  this.timeout(30_000);
  let fixture: HttpFixture;
  let eventLog: string;
  const t = useTestHost(
    async (dir) => {
      eventLog = join(dir, 'events.log');
      fixture = await startHttpFixture([], { FIXTURE_EVENT_LOG: eventLog });
      return { fixture: { url: fixture.url } };
    },
    { create: createMcpHost },
  );

  /** A host with its own elicitation handler and log, closed after the test. */
  function hostWith(onElicitation?: ElicitationHandler, events: LogEvent[] = []): McpHost {
    return t.open({ configPath: 'mcp.json', onLog: (e) => events.push(e), ...(onElicitation ? { onElicitation } : {}) });
  }

  after(async () => {
    await fixture.close();
  });

  it('an accepted form gets the schema defaults for the fields left out', async () => {
    const seen: { params: ElicitationParams; server: string }[] = [];
    const host = hostWith(async (params, { server }) => {
      seen.push({ params, server });
      return { action: 'accept', content: { note: 'hello' } };
    });
    assert.deepEqual(await elicit(host), { action: 'accept', content: { note: 'hello', name: 'John Doe', age: 30 } });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.server, 'fixture');
    const params = seen[0]!.params;
    assert.ok(params.mode !== 'url');
    assert.equal(params.message, 'Who are you?');
    assert.deepEqual(Object.keys(params.requestedSchema.properties), ['name', 'age', 'note']);
  });

  it('an answer given keeps its value over the default; accept without content gets every default', async () => {
    const host = hostWith(async () => ({ action: 'accept', content: { name: 'Ada', age: 36 } }));
    assert.deepEqual(await elicit(host), { action: 'accept', content: { name: 'Ada', age: 36 } });
    const bare = hostWith(async () => ({ action: 'accept' }));
    assert.deepEqual(await elicit(bare), { action: 'accept', content: { name: 'John Doe', age: 30 } });
  });

  it('a declined or cancelled elicitation reaches the server as such', async () => {
    assert.deepEqual(await elicit(hostWith(async () => ({ action: 'decline' }))), { action: 'decline' });
    assert.deepEqual(await elicit(hostWith(async () => ({ action: 'cancel' }))), { action: 'cancel' });
  });

  it('without a handler every elicitation is declined at once, and the log says so', async () => {
    const events: LogEvent[] = [];
    const host = hostWith(undefined, events);
    const started = Date.now();
    assert.deepEqual(await elicit(host), { action: 'decline' });
    assert.ok(Date.now() - started < 5000, 'declined promptly');
    const logged = events.find((e) => e.kind === 'elicitation');
    assert.ok(logged, 'a log event for the decline');
    assert.match(logged.message, /declined an elicitation \(no elicitation handler\): Who are you\?/);
  });

  it('a handler that throws or answers nonsense declines; the connection keeps working', async () => {
    const events: LogEvent[] = [];
    const host = hostWith(async () => {
      throw new Error('the form broke');
    }, events);
    assert.deepEqual(await elicit(host), { action: 'decline' });
    assert.ok(events.some((e) => e.kind === 'elicitation' && /the handler failed: the form broke/.test(e.message)));
    const echo = await host.call({ server: 'fixture', tool: 'echo', arguments: { text: 'still here' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'still here' }]);
    const odd = hostWith(async () => ({ action: 'maybe' }) as never);
    assert.deepEqual(await elicit(odd), { action: 'decline' });
  });

  it("a call's own onElicitation answers in place of the host's; with another caller's call in flight an unrelated request is declined", async () => {
    const events: LogEvent[] = [];
    const asked: string[] = [];
    const handler =
      (name: string): ElicitationHandler =>
      async () => {
        asked.push(name);
        return { action: 'accept', content: { name } };
      };
    const host = hostWith(handler('host'), events);
    const mine = handler('mine');
    const call = () => host.call({ server: 'fixture', tool: 'elicit', arguments: {} }, { onElicitation: mine });
    const answer = async () => JSON.parse(((await call()).content[0] as { text: string }).text) as unknown;
    assert.deepEqual(await answer(), { action: 'accept', content: { name: 'mine', age: 30 } });
    assert.deepEqual(asked, ['mine']);
    // The fixture sends its elicitation on the GET stream (no related request): with a call of
    // another caller in flight on the connection it cannot be attributed, so nobody is asked.
    const other = host.call({ server: 'fixture', tool: 'sleep', arguments: { ms: 1500 } }, { onElicitation: handler('other') });
    await waitForEvent(eventLog, 'started sleep');
    assert.deepEqual(await answer(), { action: 'decline' });
    assert.deepEqual(asked, ['mine']);
    assert.ok(events.some((e) => e.kind === 'elicitation' && /calls of several callers/.test(e.message)));
    await other;
  });

  it('URL mode hands the URL, message and id to the handler and opens nothing itself', async () => {
    const seen: ElicitationParams[] = [];
    const host = hostWith(async (params) => {
      seen.push(params);
      return { action: 'accept' };
    });
    assert.deepEqual(await elicit(host, 'url'), { action: 'accept' });
    const params = seen[0];
    assert.ok(params && params.mode === 'url');
    assert.deepEqual([params.url, params.message, params.elicitationId], ['https://example.com/sign-in', 'Sign in to the fixture', 'fixture-1']);
  });

  describe('the GET event stream, where the server sends requests outside any POST', () => {
    // The fixture sends elicitation/create without a related request id: on the GET stream only.
    // The SDK opens that stream without waiting; the host waits (bounded) before the first call.
    /** A host on a fixture started with `args`; both are closed after `body`. */
    const withFixture = async (args: string[], body: (host: McpHost, events: LogEvent[]) => Promise<void>): Promise<void> => {
      const slow = await startHttpFixture(args);
      const dir = tempDir();
      writeConfig(dir.dir, { fixture: { url: slow.url } });
      const events: LogEvent[] = [];
      const host = createMcpHost({ cwd: dir.dir, configPath: 'mcp.json', onLog: (e) => events.push(e), onElicitation: async () => ({ action: 'decline' }) });
      try {
        await body(host, events);
      } finally {
        await host.close();
        await slow.close();
        dir.cleanup();
      }
    };
    const waitedTooLong = (events: LogEvent[]): boolean => events.some((e) => /no answer to the GET event stream/.test(e.message));

    it('a first call on a new connection is sent only once the stream is open, so its elicitation arrives', () =>
      withFixture(['--get-delay-ms=500'], async (host, events) => {
        assert.deepEqual(await elicit(host), { action: 'decline' });
        assert.equal(waitedTooLong(events), false);
      }));

    it('a stream that does not open in 2 s is not waited for longer; the connection works without it', () =>
      withFixture(['--get-delay-ms=60000'], async (host, events) => {
        const echo = await host.call({ server: 'fixture', tool: 'echo', arguments: { text: 'without the stream' } });
        assert.deepEqual(echo.content, [{ type: 'text', text: 'without the stream' }]);
        assert.equal(waitedTooLong(events), true);
      }));

    it('a server without a GET stream (405) is not waited for', () =>
      withFixture(['--get-status=405'], async (host, events) => {
        const echo = await host.call({ server: 'fixture', tool: 'echo', arguments: { text: 'no stream' } });
        assert.deepEqual(echo.content, [{ type: 'text', text: 'no stream' }]);
        assert.equal(waitedTooLong(events), false);
      }));
  });
});
