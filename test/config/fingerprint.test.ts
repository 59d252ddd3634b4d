import assert from 'node:assert/strict';
import { canonicalJson, fingerprint } from '../../src/config/fingerprint.js';
import type { LoadedConfig } from '../../src/config/index.js';
import { createTempTree, type TempTree } from './temp-machine.js';
import { loadWith, slotOf } from './load-helpers.js';

function fingerprintOf(loaded: LoadedConfig, name: string): string {
  const slot = slotOf(loaded, name);
  assert.equal(slot.status, 'ok');
  return slot.config.fingerprint;
}

describe('config/fingerprint', () => {
  let tree: TempTree;
  before(async () => {
    tree = await createTempTree();
  });
  after(async () => {
    await tree.remove();
  });

  it('canonicalizes with sorted keys at every level and arrays in order', () => {
    assert.equal(canonicalJson({ b: 1, a: [3, { d: 'x', c: null }], '': true }), '{"":true,"a":[3,{"c":null,"d":"x"}],"b":1}');
    assert.equal(fingerprint({ a: 1, b: 2 }), fingerprint({ b: 2, a: 1 }));
    assert.notEqual(fingerprint({ a: [1, 2] }), fingerprint({ a: [2, 1] }));
    assert.match(fingerprint({}), /^[0-9a-f]{64}$/);
  });

  const stdio = { command: 'node', args: ['server.js', '--flag'], env: { A: '1', B: '2' }, cwd: '/srv', timeout: 30 };
  const http = { url: 'https://example.com/mcp', headers: { A: '1', B: '2' }, timeout: 30 };

  it('is the same for the same resolved config, across loads, names and key order', async () => {
    const loaded = await loadWith(
      tree,
      {
        mcpServers: {
          one: stdio,
          two: { timeout: 30, cwd: '/srv', env: { B: '2', A: '1' }, args: ['server.js', '--flag'], command: 'node' },
          viaVar: { ...stdio, command: '${NODE}' },
          h1: http,
          h2: { ...http, headers: { B: '2', A: '1' } },
        },
      },
      { NODE: 'node' },
    );
    const again = await loadWith(tree, { mcpServers: { renamed: stdio } });
    assert.equal(fingerprintOf(loaded, 'one'), fingerprintOf(loaded, 'two'));
    assert.equal(fingerprintOf(loaded, 'one'), fingerprintOf(loaded, 'viaVar'));
    assert.equal(fingerprintOf(loaded, 'one'), fingerprintOf(again, 'renamed'));
    assert.equal(fingerprintOf(loaded, 'h1'), fingerprintOf(loaded, 'h2'));
    assert.notEqual(fingerprintOf(loaded, 'one'), fingerprintOf(loaded, 'h1'));
  });

  it('changes when any resolved field changes', async () => {
    const variants: Record<string, unknown> = {
      base: stdio,
      command: { ...stdio, command: 'nodejs' },
      args: { ...stdio, args: ['--flag', 'server.js'] },
      argsMore: { ...stdio, args: [...stdio.args, ''] },
      envValue: { ...stdio, env: { A: '1', B: '3' } },
      envKey: { ...stdio, env: { A: '1', C: '2' } },
      cwd: { ...stdio, cwd: '/srv2' },
      cwdDefault: { ...stdio, cwd: undefined },
      timeout: { ...stdio, timeout: 31 },
      hBase: http,
      url: { ...http, url: 'https://example.com/mcp2' },
      headerValue: { ...http, headers: { A: '1', B: '3' } },
      headerKey: { ...http, headers: { A: '1', b: '2' } },
      hTimeout: { ...http, timeout: 29 },
      varValue: { ...stdio, env: { A: '1', B: '${B_VALUE}' } },
    };
    const loaded = await loadWith(tree, { mcpServers: variants }, { B_VALUE: '22' });
    const prints = Object.keys(variants).map((name) => fingerprintOf(loaded, name));
    assert.equal(new Set(prints).size, prints.length);
    const other = await loadWith(tree, { mcpServers: { varValue: variants['varValue'] } }, { B_VALUE: '23' });
    assert.notEqual(fingerprintOf(other, 'varValue'), fingerprintOf(loaded, 'varValue'));
  });

  it('stays out of error messages', async () => {
    const loaded = await loadWith(tree, { mcpServers: { ok: stdio, bad: { command: 'x', args: [1] } } });
    const slot = slotOf(loaded, 'bad');
    assert.equal(slot.status, 'error');
    assert.doesNotMatch(slot.error.message, /[0-9a-f]{64}/);
  });
});
