import assert from 'node:assert/strict';
import { ConfigError } from '../../src/common/errors.js';
import { createTempTree, type TempTree } from './temp-machine.js';
import { configErrorOf, errorOf, httpOf, loadWith, slotOf, stdioOf } from './load-helpers.js';

const ALLOWED =
  'Allowed keys: command, args, env, cwd, sandbox (stdio); url, headers, oauth (HTTP); type, enabled, timeout, protocol, enabledTools, disabledTools (both)';

describe('config/validate', () => {
  let tree: TempTree;
  let file: string;
  before(async () => {
    tree = await createTempTree();
    file = `${tree.home}/.config/berry/mcp.json`;
  });
  after(async () => {
    await tree.remove();
  });

  /** Loads one entry named `name` and returns its ConfigError. */
  async function entryError(entry: unknown, name = 'srv'): Promise<ConfigError> {
    const loaded = await loadWith(tree, { mcpServers: { [name]: entry, good: { command: 'ok' } } });
    assert.equal(slotOf(loaded, 'good').status, 'ok', 'a bad entry must not break the others');
    const error = errorOf(loaded, name);
    assert.ok(error instanceof ConfigError, error.message);
    assert.equal(error.code, 'MCP_CONFIG_INVALID');
    assert.equal(error.file, file);
    assert.equal(error.server, name);
    return error;
  }

  it('accepts a minimal stdio and a minimal HTTP entry with defaults', async () => {
    const loaded = await loadWith(tree, { mcpServers: { s: { command: 'node' }, h: { url: 'https://example.com/mcp' } } });
    const s = stdioOf(loaded, 's');
    assert.deepEqual([s.args, { ...s.env }, s.cwd], [[], {}, tree.work]);
    assert.deepEqual([s.timeoutMs, s.initTimeoutMs], [60_000, 30_000]);
    const h = httpOf(loaded, 'h');
    assert.deepEqual([h.url, { ...h.headers }, h.timeoutMs, h.initTimeoutMs], ['https://example.com/mcp', {}, 60_000, 30_000]);
  });

  it('turns timeout seconds into milliseconds and caps initialization at 30 s', async () => {
    const loaded = await loadWith(tree, {
      mcpServers: { a: { command: 'x', timeout: 10 }, b: { command: 'x', timeout: 0.5 }, c: { url: 'http://h/', timeout: 86_400 } },
    });
    assert.deepEqual([stdioOf(loaded, 'a').timeoutMs, stdioOf(loaded, 'a').initTimeoutMs], [10_000, 10_000]);
    assert.deepEqual([stdioOf(loaded, 'b').timeoutMs, stdioOf(loaded, 'b').initTimeoutMs], [500, 500]);
    assert.deepEqual([httpOf(loaded, 'c').timeoutMs, httpOf(loaded, 'c').initTimeoutMs], [86_400_000, 30_000]);
  });

  it('rejects an invalid timeout', async () => {
    for (const timeout of [0, -1, 86_401, '60', null, true]) {
      const error = await entryError({ command: 'x', timeout });
      assert.equal(error.jsonPath, '$.mcpServers.srv.timeout');
      assert.match(error.message, /\$\.mcpServers\.srv\.timeout must be a number of seconds greater than 0 and at most 86400, got /);
    }
  });

  it('rejects an entry with both command and url, or neither', async () => {
    const both = await entryError({ command: 'x', url: 'http://h/' });
    assert.equal(both.jsonPath, '$.mcpServers.srv');
    assert.match(both.message, /has both "command" and "url"/);
    const neither = await entryError({ args: [] });
    assert.match(neither.message, /has neither "command" \(stdio server\) nor "url" \(HTTP server\)/);
  });

  it('rejects an unknown key, naming it and listing the allowed ones', async () => {
    const error = await entryError({ command: 'x', transport: 'stdio' });
    assert.equal(error.jsonPath, '$.mcpServers.srv.transport');
    assert.ok(error.message.includes(`$.mcpServers.srv.transport is not a known key. ${ALLOWED}`), error.message);
  });

  it('rejects keys of the other transport', async () => {
    const stdio = await entryError({ command: 'x', headers: {} });
    assert.equal(stdio.jsonPath, '$.mcpServers.srv.headers');
    assert.match(stdio.message, /headers applies only to HTTP servers/);
    const http = await entryError({ url: 'http://h/', cwd: '/' });
    assert.equal(http.jsonPath, '$.mcpServers.srv.cwd');
    assert.match(http.message, /cwd applies only to stdio servers/);
  });

  it('rejects wrong types with a precise JSON path and no value', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ command: '' }, '$.mcpServers.srv.command', /must be a non-empty string, got an empty string/],
      [{ command: 5 }, '$.mcpServers.srv.command', /must be a non-empty string, got number/],
      [{ command: 'x', args: 'a b' }, '$.mcpServers.srv.args', /must be an array of strings, got string/],
      [{ command: 'x', args: ['a', 'b', 3] }, '$.mcpServers.srv.args[2]', /\.args\[2\] must be a string, got number/],
      [{ command: 'x', env: ['A=1'] }, '$.mcpServers.srv.env', /must be an object of strings, got array/],
      [{ command: 'x', env: { A: 1 } }, '$.mcpServers.srv.env.A', /must be a string, got number/],
      [{ command: 'x', env: { 'A=B': 'v' } }, '$.mcpServers.srv.env["A=B"]', /is not a valid environment variable name/],
      [{ command: 'x', cwd: false }, '$.mcpServers.srv.cwd', /must be a non-empty string, got boolean/],
      [{ url: 7 }, '$.mcpServers.srv.url', /must be a non-empty string, got number/],
      [{ url: 'http://h/', headers: { 'X-Key': null } }, '$.mcpServers.srv.headers["X-Key"]', /must be a string, got null/],
      [{ url: 'http://h/', headers: { 'Bad Name': 'v' } }, '$.mcpServers.srv.headers["Bad Name"]', /is not a valid HTTP header name/],
      [{ url: 'http://h/', enabled: 'no' }, '$.mcpServers.srv.enabled', /must be true or false, got string/],
    ];
    for (const [entry, jsonPath, message] of cases) {
      const error = await entryError(entry);
      assert.equal(error.jsonPath, jsonPath, JSON.stringify(entry));
      assert.match(error.message, message);
      assert.match(error.message, /^Server "srv" in \/.*mcp\.json is invalid: .*\. Fix the entry and retry\.$/);
    }
  });

  it('rejects header names that differ only in case', async () => {
    const error = await entryError({ url: 'http://h/', headers: { Authorization: 'a', authorization: 'b' } });
    assert.equal(error.jsonPath, '$.mcpServers.srv.headers.authorization');
    assert.match(error.message, /repeats header "Authorization" \(header names are case-insensitive\)/);
  });

  it('rejects an entry that is not an object', async () => {
    for (const entry of ['npx foo', null, [], 1]) {
      const error = await entryError(entry);
      assert.equal(error.jsonPath, '$.mcpServers.srv');
      assert.match(error.message, /must be an object with "command" \(stdio\) or "url" \(HTTP\), got /);
    }
  });

  it('reports every problem of an entry in one message', async () => {
    const error = await entryError({ command: 'x', args: [1], timeout: -5, extra: true });
    assert.equal(error.jsonPath, '$.mcpServers.srv.args[0]');
    assert.match(
      error.message,
      /is invalid \(3 problems\): \$\.mcpServers\.srv\.args\[0\] must be a string, got number; \$\.mcpServers\.srv\.timeout .* got -5; \$\.mcpServers\.srv\.extra is not a known key/,
    );
  });

  it('uses ["..."] in JSON paths for names that are not identifiers', async () => {
    const error = await entryError({ command: 'x', args: ['a', 'b', {}] }, 'my-srv');
    assert.equal(error.jsonPath, '$.mcpServers["my-srv"].args[2]');
    assert.equal(error.server, 'my-srv');
  });

  it('rejects an empty server name but accepts any other string', async () => {
    const loaded = await loadWith(tree, { mcpServers: { '': { command: 'x' }, 'a b/ü "q"': { command: 'x' } } });
    assert.equal(configErrorOf(loaded, '').jsonPath, '$.mcpServers[""]');
    assert.match(errorOf(loaded, '').message, /empty server name/);
    assert.equal(stdioOf(loaded, 'a b/ü "q"').name, 'a b/ü "q"');
  });

  it('handles __proto__ and constructor as ordinary server names without pollution', async () => {
    const text = '{"mcpServers": {"__proto__": {"command": "p", "args": ["1"]}, "constructor": {"url": "http://c/"}, "toString": {"command": "t"}}}';
    const loaded = await loadWith(tree, text);
    assert.deepEqual(
      loaded.servers.map((slot) => [slot.name, slot.status]),
      [
        ['__proto__', 'ok'],
        ['constructor', 'ok'],
        ['toString', 'ok'],
      ],
    );
    assert.equal(stdioOf(loaded, '__proto__').command, 'p');
    assert.deepEqual(stdioOf(loaded, '__proto__').args, ['1']);
    assert.equal(httpOf(loaded, 'constructor').url, 'http://c/');
    assert.equal(({} as Record<string, unknown>)['command'], undefined);
    assert.equal(Object.hasOwn(Object.prototype, 'command'), false);
  });

  it('refuses __proto__ as an env or header name (a copy onto an object would drop it); other Object names are plain keys', async () => {
    const text =
      '{"mcpServers": {"a": {"command": "x", "env": {"constructor": "v1", "toString": "v3"}}, "b": {"url": "http://h/", "headers": {"constructor": "v2"}},' +
      ' "c": {"command": "x", "env": {"__proto__": "v4"}}, "d": {"url": "http://h/", "headers": {"__proto__": "v5"}}}}';
    const loaded = await loadWith(tree, text);
    const env = stdioOf(loaded, 'a').env;
    assert.deepEqual(Object.keys(env), ['constructor', 'toString']);
    assert.equal(env['constructor'], 'v1');
    assert.equal(Object.getPrototypeOf(env), null);
    assert.equal(httpOf(loaded, 'b').headers['constructor'], 'v2');
    assert.equal(configErrorOf(loaded, 'c').jsonPath, '$.mcpServers.c.env.__proto__');
    assert.match(
      configErrorOf(loaded, 'c').message,
      /\$\.mcpServers\.c\.env\.__proto__ cannot be passed on: a JavaScript object drops a key named "__proto__"; rename it/,
    );
    assert.equal(configErrorOf(loaded, 'd').jsonPath, '$.mcpServers.d.headers.__proto__');
    assert.doesNotMatch(configErrorOf(loaded, 'c').message, /v4/);
  });

  it('reports a server name given twice, and a key given twice in an entry', async () => {
    const text =
      '{"mcpServers": {\n"a": {"command": "x"},\n"b": {"command": "y", "args": [], "args": ["2"]},\n"a": {"command": "z"},\n"c": {"command": "ok"}}}';
    const loaded = await loadWith(tree, text);
    assert.deepEqual(
      loaded.servers.map((slot) => [slot.name, slot.status]),
      [
        ['a', 'error'],
        ['b', 'error'],
        ['c', 'ok'],
      ],
    );
    const a = configErrorOf(loaded, 'a');
    assert.equal(a.jsonPath, '$.mcpServers.a');
    assert.match(a.message, /\$\.mcpServers\.a is defined more than once \(lines 2 and 4\)/);
    const b = configErrorOf(loaded, 'b');
    assert.equal(b.jsonPath, '$.mcpServers.b.args');
    assert.match(b.message, /\$\.mcpServers\.b\.args is given more than once \(lines 3 and 3\)/);
  });

  it('marks enabled:false as disabled after structural validation, without expanding variables', async () => {
    const loaded = await loadWith(tree, {
      mcpServers: {
        s: { command: '${MISSING}', args: ['${ALSO:-bad}'], enabled: false },
        h: { url: '${NOPE}', headers: { A: '${X}' }, enabled: false },
        broken: { command: 'x', enabled: false, args: [1] },
        on: { command: 'x', enabled: true },
      },
    });
    assert.deepEqual(slotOf(loaded, 's'), { name: 's', status: 'disabled', transport: 'stdio' });
    assert.deepEqual(slotOf(loaded, 'h'), { name: 'h', status: 'disabled', transport: 'http' });
    assert.equal(configErrorOf(loaded, 'broken').jsonPath, '$.mcpServers.broken.args[0]');
    assert.equal(slotOf(loaded, 'on').status, 'ok');
  });

  it('takes enabledTools or disabledTools (not both) as a filter kept out of the fingerprint', async () => {
    const loaded = await loadWith(tree, {
      mcpServers: {
        only: { command: 'x', enabledTools: ['read', 'list'] },
        but: { url: 'http://h/', disabledTools: ['write'] },
        plain: { command: 'x' },
      },
    });
    assert.deepEqual(stdioOf(loaded, 'only').toolFilter, { mode: 'enabled', names: ['read', 'list'] });
    assert.deepEqual(httpOf(loaded, 'but').toolFilter, { mode: 'disabled', names: ['write'] });
    assert.equal(stdioOf(loaded, 'plain').toolFilter, undefined);
    // The same server with another filter shares a connection (and a saved catalog).
    assert.equal(stdioOf(loaded, 'only').fingerprint, stdioOf(loaded, 'plain').fingerprint);
  });

  it('rejects both filters, a non-array, non-string or repeated names, with precise paths', async () => {
    const both = await entryError({ command: 'x', enabledTools: ['a'], disabledTools: ['b'] });
    assert.match(both.message, /\$\.mcpServers\.srv has both "enabledTools" and "disabledTools"; keep one/);
    const notArray = await entryError({ command: 'x', enabledTools: 'a' });
    assert.equal(notArray.jsonPath, '$.mcpServers.srv.enabledTools');
    assert.match(notArray.message, /must be an array of tool names, got string/);
    const bad = await entryError({ command: 'x', disabledTools: ['a', 3, '', 'a'] });
    assert.match(bad.message, /disabledTools\[1\] must be a tool name \(a non-empty string\), got number/);
    assert.match(bad.message, /disabledTools\[2\] must be a tool name \(a non-empty string\), got an empty string/);
    assert.match(bad.message, /disabledTools\[3\] repeats "a"/);
  });
});
