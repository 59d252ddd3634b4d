import assert from 'node:assert/strict';
import { createTempTree, type TempTree } from './temp-machine.js';
import { configErrorOf, loadWith, slotOf, stdioOf } from './load-helpers.js';

describe('config/validate-sandbox', () => {
  let tree: TempTree;
  before(async () => {
    tree = await createTempTree();
  });
  after(async () => {
    await tree.remove();
  });

  it('fills the defaults, expands ${VAR} in binds, orders nested binds and names the private home', async () => {
    const sandbox = { mode: 'on', roBinds: ['${TOOLS}/opt:/data/tools', '/etc/ssl'], rwBinds: ['~/cache:/data'], envPass: ['HTTPS_PROXY'] };
    const loaded = await loadWith(tree, { mcpServers: { 'my files': { command: 'node', sandbox } } }, { TOOLS: '/srv' });
    const policy = stdioOf(loaded, 'my files').sandbox;
    assert.ok(policy);
    assert.deepEqual(
      { ...policy, binds: policy.binds.map((b) => ({ ...b })), envPass: [...policy.envPass] },
      {
        mode: 'on',
        network: true,
        workspace: 'ro',
        binds: [
          // /data is mounted before /data/tools, which sits inside it; the rest keeps its order.
          { source: `${tree.home}/cache`, target: '/data', writable: true },
          { source: '/srv/opt', target: '/data/tools', writable: false },
          { source: '/etc/ssl', target: '/etc/ssl', writable: false },
        ],
        envPass: ['HTTPS_PROXY'],
        home: `${tree.home}/.config/berry/mcp-homes/my%20files`,
      },
    );
  });

  it('an entry without sandbox, or with mode "off", resolves exactly as before (same fingerprint)', async () => {
    const loaded = await loadWith(tree, {
      mcpServers: {
        plain: { command: 'node' },
        off: { command: 'node', sandbox: { mode: 'off', network: false } },
        on: { command: 'node', sandbox: { mode: 'on' } },
      },
    });
    assert.equal(stdioOf(loaded, 'plain').sandbox, undefined);
    assert.equal(stdioOf(loaded, 'off').sandbox, undefined);
    assert.equal(stdioOf(loaded, 'off').fingerprint, stdioOf(loaded, 'plain').fingerprint);
    assert.notEqual(stdioOf(loaded, 'on').fingerprint, stdioOf(loaded, 'plain').fingerprint);
  });

  it('the block is part of the fingerprint: a change, or another server name (another home), is another connection', async () => {
    const entry = (sandbox: unknown): unknown => ({ command: 'node', sandbox });
    const a = await loadWith(tree, { mcpServers: { a: entry({ mode: 'on' }), b: entry({ mode: 'on' }) } });
    const again = await loadWith(tree, { mcpServers: { a: entry({ mode: 'on' }) } });
    const changed = await loadWith(tree, { mcpServers: { a: entry({ mode: 'on', network: false }) } });
    assert.equal(stdioOf(again, 'a').fingerprint, stdioOf(a, 'a').fingerprint);
    assert.notEqual(stdioOf(changed, 'a').fingerprint, stdioOf(a, 'a').fingerprint);
    assert.notEqual(stdioOf(a, 'b').fingerprint, stdioOf(a, 'a').fingerprint, 'each server has its own private home');
  });

  it('reports every bad value with its JSON path (MCP_CONFIG_INVALID)', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      ['on', '$.mcpServers.s.sandbox', /must be an object/],
      [{ mode: 'maybe' }, '$.mcpServers.s.sandbox.mode', /"off", "on" or "auto"/],
      [{ network: 'no' }, '$.mcpServers.s.sandbox.network', /true .* or false/],
      [{ workspace: 'write' }, '$.mcpServers.s.sandbox.workspace', /"ro", "rw" or "none"/],
      [{ roBinds: '/etc' }, '$.mcpServers.s.sandbox.roBinds', /array of strings/],
      [{ rwBinds: ['/ok', 3] }, '$.mcpServers.s.sandbox.rwBinds[1]', /must be a string/],
      [{ roBinds: [':/x'] }, '$.mcpServers.s.sandbox.roBinds[0]', /"HOST" or "HOST:SANDBOX"/],
      [{ mode: 'on', roBinds: ['/opt:relative'] }, '$.mcpServers.s.sandbox.roBinds[0]', /not absolute/],
      [{ mode: 'on', roBinds: ['/opt:/'] }, '$.mcpServers.s.sandbox.roBinds[0]', /sandbox root/],
      [{ envPass: ['A-B'] }, '$.mcpServers.s.sandbox.envPass[0]', /environment variable name/],
      [{ envPass: ['A', 'A'] }, '$.mcpServers.s.sandbox.envPass[1]', /repeats/],
      [{ ro_binds: [] }, '$.mcpServers.s.sandbox.ro_binds', /not a known key. Allowed keys: mode, network, workspace, roBinds, rwBinds, envPass/],
    ];
    for (const [sandbox, jsonPath, pattern] of cases) {
      const loaded = await loadWith(tree, { mcpServers: { s: { command: 'node', sandbox }, good: { command: 'ok' } } });
      assert.equal(slotOf(loaded, 'good').status, 'ok');
      assert.equal(slotOf(loaded, 's').status, 'error', JSON.stringify(sandbox));
      const error = configErrorOf(loaded, 's');
      assert.equal(error.code, 'MCP_CONFIG_INVALID');
      assert.equal(error.jsonPath, jsonPath, `${JSON.stringify(sandbox)}: ${error.message}`);
      assert.match(error.message, pattern);
    }
  });

  it('refuses a sandbox block on an HTTP entry (it spawns nothing to confine)', async () => {
    const loaded = await loadWith(tree, { mcpServers: { h: { url: 'https://example.com/mcp', sandbox: { mode: 'on' } } } });
    const error = configErrorOf(loaded, 'h');
    assert.equal(error.jsonPath, '$.mcpServers.h.sandbox');
    assert.match(error.message, /applies only to stdio servers/);
  });

  it('a ${VAR} missing in a bind is MCP_ENV_MISSING like anywhere else in the entry', async () => {
    const loaded = await loadWith(tree, { mcpServers: { s: { command: 'node', sandbox: { mode: 'on', roBinds: ['${NOT_SET_HERE}'] } } } });
    const slot = slotOf(loaded, 's');
    assert.equal(slot.status, 'error');
    assert.equal(slot.status === 'error' && slot.error.code, 'MCP_ENV_MISSING');
  });
});
