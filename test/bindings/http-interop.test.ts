import assert from 'node:assert/strict';
import { createMcpHost, type LogEvent } from '../../src/bindings/index.js';
import { isBerryError, type BerryErrorCode } from '../../src/common/errors.js';
import { type HttpFixture, startHttpFixture } from '../support/fixture-servers.js';
import { useTestHost } from '../support/test-host.js';

/** Asserts that `promise` rejects with a BerryError of `code` and returns its message. */
async function rejectsWith(promise: Promise<unknown>, code: BerryErrorCode): Promise<string> {
  let message = '';
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isBerryError(error), String(error));
    assert.equal(error.code, code, error.message);
    message = error.message;
    return true;
  });
  return message;
}

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe('Streamable HTTP as real servers speak it', function () {
  this.timeout(60_000);
  let main: HttpFixture;
  let get404: HttpFixture;
  let get405: HttpFixture;
  let keepAlive: HttpFixture;
  const events: LogEvent[] = [];
  const initialized = (server: string): number => events.filter((e) => e.server === server && e.kind === 'initialized').length;

  const t = useTestHost(
    async (_dir) => {
      [main, get404, get405, keepAlive] = await Promise.all([
        startHttpFixture(['--resumable=100']),
        startHttpFixture(['--stateless', '--get-status=404']),
        // This one answers POSTs with application/json instead of an event stream.
        startHttpFixture(['--stateless', '--get-status=405', '--json-response']),
        // Closes idle sockets after 600 ms; its event-stream replies carry no Keep-Alive hint.
        startHttpFixture(['--keep-alive-ms=600']),
      ]);
      return {
        main: { url: main.url },
        slow: { url: main.url, timeout: 1 },
        get404: { type: 'http', url: get404.url },
        get405: { type: 'streamable-http', url: get405.url },
        auth: { url: `${main.base}/auth-mcp`, headers: { Authorization: 'Bearer stale-token' } },
        oauth: { url: `${main.base}/auth-mcp` },
        nowhere: { url: `${main.base}/no-such-path` },
        keepAlive: { url: keepAlive.url },
      };
    },
    { create: createMcpHost, options: { configPath: 'mcp.json', onLog: (e) => events.push(e) } },
  );

  after(async () => {
    await Promise.all([main.close(), get404.close(), get405.close(), keepAlive.close()]);
  });

  for (const status of [404, 405]) {
    it(`a server without a GET event stream (${status}, no session) is normal: list and calls work on one connection`, async () => {
      const server = `get${status}`;
      const fixture = status === 404 ? get404 : get405;
      const listed = await t.host.list({ server });
      const entry = listed.servers[0]!;
      assert.equal(entry.status, 'connected', JSON.stringify(entry));
      for (const text of ['one', 'two']) {
        const result = await t.host.call({ server, tool: 'echo', arguments: { text } });
        assert.equal(textOf(result), text);
      }
      assert.ok((await fixture.stats()).gets >= 1, 'the client did try the GET stream');
      assert.equal(initialized(server), 1, 'the connection was never replaced');
    });
  }

  it('requests after initialization carry MCP-Protocol-Version and the session id; JSON and SSE answers both work', async () => {
    const result = await t.host.call({ server: 'main', tool: 'whoami', arguments: {} });
    const { headers } = JSON.parse(textOf(result)) as { headers: Record<string, string> };
    assert.equal(headers['mcp-protocol-version'], '2025-11-25');
    assert.match(headers['mcp-session-id'] ?? '', /^[0-9a-f-]{36}$/);
    assert.match(headers['accept'] ?? '', /application\/json/);
    assert.match(headers['accept'] ?? '', /text\/event-stream/);
    const json = await t.host.call({ server: 'get405', tool: 'whoami', arguments: {} });
    assert.equal((JSON.parse(textOf(json)) as { headers: Record<string, string> }).headers['mcp-protocol-version'], '2025-11-25');
  });

  it('a 404 to a request that carried the session id is still MCP_SESSION_EXPIRED', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    await t.host.call({ server: 'main', tool: 'expire_sessions', arguments: {} });
    const message = await rejectsWith(t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'x' } }), 'MCP_SESSION_EXPIRED');
    assert.match(message, /no longer knows this session/);
    const again = await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'new session' } });
    assert.equal(textOf(again), 'new session');
  });

  it('a response stream the server closes mid-call is resumed with Last-Event-ID and the answer arrives', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const before = await main.stats();
    const initsBefore = initialized('main');
    const result = await t.host.call({ server: 'main', tool: 'drop_stream', arguments: { ms: 300 } });
    assert.equal(textOf(result), 'answered after the stream was dropped (300 ms)');
    const after = await main.stats();
    assert.equal(after.drops, before.drops + 1);
    assert.ok(after.lastEventIds.length > before.lastEventIds.length, 'resumed with a Last-Event-ID header');
    assert.equal(initialized('main'), initsBefore, 'resumed on the same session');
  });

  it('a response stream broken by a connection reset is resumed too', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const before = await main.stats();
    const result = await t.host.call({ server: 'main', tool: 'drop_stream', arguments: { ms: 400, reset: true } });
    assert.equal(textOf(result), 'answered after the stream was dropped (400 ms)');
    assert.ok((await main.stats()).lastEventIds.length > before.lastEventIds.length, 'resumed with a Last-Event-ID header');
  });

  it('a server that closes the stream again and again (polling) is followed past the failed-attempt bound', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const before = await main.stats();
    const result = await t.host.call({ server: 'main', tool: 'drop_stream', arguments: { ms: 150, times: 5 } });
    assert.equal(textOf(result), 'answered after the stream was dropped (150 ms)');
    const after = await main.stats();
    assert.equal(after.drops, before.drops + 5);
    assert.ok(after.lastEventIds.length - before.lastEventIds.length >= 5, 'one resumption per drop');
  });

  it('a response stream that cannot be resumed fails the call at once with MCP_TRANSPORT_CLOSED', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const inits = initialized('main');
    // No event id: nothing to resume from.
    let started = Date.now();
    let message = await rejectsWith(t.host.call({ server: 'main', tool: 'cut_stream', arguments: {} }), 'MCP_TRANSPORT_CLOSED');
    assert.ok(Date.now() - started < 3000, `prompt (${Date.now() - started} ms), not the 60 s timeout`);
    assert.match(message, /ended the response stream before answering, and it could not be resumed: the server sent no event id/);
    // An event id, but every GET that tries to resume fails: bounded attempts.
    started = Date.now();
    message = await rejectsWith(t.host.call({ server: 'main', tool: 'cut_stream', arguments: { primed: true } }), 'MCP_TRANSPORT_CLOSED');
    assert.ok(Date.now() - started < 5000, `prompt (${Date.now() - started} ms)`);
    assert.match(message, /3 reconnection attempts failed/);
    assert.ok((await main.stats()).lastEventIds.includes('cut-1'));
    assert.equal(textOf(await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'still' } })), 'still');
    assert.equal(initialized('main'), inits, 'a lost response stream does not end the session');
  });

  it('HTTP 500 on one POST fails that call alone, naming the status; calls in flight and later calls go on', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const inits = initialized('main');
    const inFlight = t.host.call({ server: 'main', tool: 'sleep', arguments: { ms: 400 } });
    const message = await rejectsWith(t.host.call({ server: 'main', tool: 'http_status', arguments: { status: 500 } }), 'MCP_PROTOCOL_ERROR');
    assert.match(
      message,
      /answered HTTP 500 Internal Server Error to POST \(the server failed.*: fixture error 500\. This call failed; the connection stays open/,
    );
    assert.equal(textOf(await inFlight), 'slept 400');
    assert.equal(textOf(await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'after' } })), 'after');
    assert.equal(initialized('main'), inits, 'same connection');
  });

  it('a truncated JSON body fails that call alone as a protocol error', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const inits = initialized('main');
    const message = await rejectsWith(t.host.call({ server: 'main', tool: 'truncated_json', arguments: {} }), 'MCP_PROTOCOL_ERROR');
    assert.match(message, /not valid JSON \(cut off\?\)/);
    assert.equal(textOf(await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'ok' } })), 'ok');
    assert.equal(initialized('main'), inits, 'same connection');
  });

  it('401 is MCP_AUTH_REQUIRED naming the realm and scope, in list and on call', async () => {
    // An entry with its own Authorization header: berry-mcp does not sign in, it says what the server wants.
    const listed = await t.host.list({ server: 'auth' });
    const entry = listed.servers[0]!;
    assert.ok(entry.status === 'auth_required', JSON.stringify(entry));
    assert.equal(entry.error.code, 'MCP_AUTH_REQUIRED');
    assert.match(entry.error.message, /Server "auth" needs authorization: it answered HTTP 401 \(Bearer, realm "berry-fixture", scope "mcp:read mcp:write"\)/);
    await rejectsWith(t.host.call({ server: 'auth', tool: 'echo', arguments: { text: 'x' } }), 'MCP_AUTH_REQUIRED');
    // Without one, the 401 is a sign-in to run (docs/auth.md).
    const signIn = (await t.host.list({ server: 'oauth' })).servers[0]!;
    assert.ok(signIn.status === 'auth_required' && /berry-mcp auth oauth/.test(signIn.error.message), JSON.stringify(signIn));
  });

  it('an HTTP failure during initialize names the status and what it likely means', async () => {
    const message = await rejectsWith(t.host.call({ server: 'nowhere', tool: 'echo', arguments: {} }), 'MCP_CONNECT_FAILED');
    assert.match(message, /HTTP 404 Not Found to POST \(no MCP endpoint at this URL: check "url", including its path/);
    assert.doesNotMatch(message, /Error POSTing to endpoint/);
  });

  it('a response stream the server keeps open after the answer is closed by the client', async () => {
    await t.host.call({ server: 'main', tool: 'echo', arguments: { text: 'warm' } });
    const before = (await main.stats()).closedEarly;
    assert.equal(textOf(await t.host.call({ server: 'main', tool: 'linger', arguments: {} })), 'lingering');
    let closed = before;
    for (let i = 0; i < 50 && closed <= before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      closed = (await main.stats()).closedEarly;
    }
    assert.ok(closed > before, 'the lingering stream was cut within 5 s');
  });

  it('a timed-out call does not hold its HTTP request open', async () => {
    await t.host.call({ server: 'slow', tool: 'echo', arguments: { text: 'warm' } });
    const before = (await main.stats()).closedEarly;
    await rejectsWith(t.host.call({ server: 'slow', tool: 'sleep', arguments: { ms: 5000 } }), 'MCP_TIMEOUT');
    // The server ignores the cancellation's stream; only the client can end the request.
    let closed = before;
    for (let i = 0; i < 30 && closed <= before; i++) {
      closed = (await main.stats()).closedEarly;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(closed > before, 'the POST of the timed-out call was aborted');
  });

  it('a keep-alive socket the server closed while the host was busy is not used for the next call', async () => {
    await t.host.call({ server: 'keepAlive', tool: 'echo', arguments: { text: 'warm' } });
    for (let i = 0; i < 3; i++) {
      // Synchronous work (as parsing a large result is) past the server's idle timeout: its FIN
      // waits unread while the next call starts.
      const until = Date.now() + 900;
      while (Date.now() < until);
      assert.equal(textOf(await t.host.call({ server: 'keepAlive', tool: 'echo', arguments: { text: `after ${i}` } })), `after ${i}`);
    }
    assert.equal(initialized('keepAlive'), 1, 'the connection was never replaced');
  });
});
