import assert from 'node:assert/strict';
import { createTempTree, type TempTree } from './temp-machine.js';
import { httpOf, loadWith, stdioOf } from './load-helpers.js';

describe('config/resolve', () => {
  let tree: TempTree;
  before(async () => {
    tree = await createTempTree();
  });
  after(async () => {
    await tree.remove();
  });

  it('resolves cwd: default, absolute, relative to the cwd option, ~ and ~/ against home, after expansion', async () => {
    const loaded = await loadWith(
      tree,
      {
        mcpServers: {
          none: { command: 'x' },
          abs: { command: 'x', cwd: '/srv/./data/' },
          rel: { command: 'x', cwd: 'sub/../other' },
          tilde: { command: 'x', cwd: '~' },
          tildeSlash: { command: 'x', cwd: '~/projects' },
          viaVar: { command: 'x', cwd: '${DIR}/y' },
          notHome: { command: 'x', cwd: '~user/z' },
        },
      },
      { DIR: '~/from-var' },
    );
    assert.equal(stdioOf(loaded, 'none').cwd, tree.work);
    assert.equal(stdioOf(loaded, 'abs').cwd, '/srv/data/');
    assert.equal(stdioOf(loaded, 'rel').cwd, `${tree.work}/other`);
    assert.equal(stdioOf(loaded, 'tilde').cwd, tree.home);
    assert.equal(stdioOf(loaded, 'tildeSlash').cwd, `${tree.home}/projects`);
    assert.equal(stdioOf(loaded, 'viaVar').cwd, `${tree.home}/from-var/y`);
    assert.equal(stdioOf(loaded, 'notHome').cwd, `${tree.work}/~user/z`);
  });

  it('collects secrets: env and header values and substituted values, deduplicated, none shorter than 4', async () => {
    const loaded = await loadWith(
      tree,
      {
        mcpServers: {
          s: {
            command: '${BIN}',
            args: ['--token', '${TOKEN}', '${SHORT}'],
            env: { API_KEY: 'literal-key', DEBUG: '1', EMPTY: '', AGAIN: '${TOKEN}' },
            cwd: '${DIR}',
          },
          h: { url: 'https://h/${PATH_PART}', headers: { Authorization: 'Bearer ${TOKEN}', 'X-N': 'abc' } },
        },
      },
      { BIN: '/usr/bin/tool', TOKEN: 'tok-secret-1', SHORT: 'ab', DIR: '/data', PATH_PART: 'p4rt' },
    );
    assert.deepEqual(stdioOf(loaded, 's').secrets, ['literal-key', 'tok-secret-1', '/usr/bin/tool', '/data']);
    assert.deepEqual(httpOf(loaded, 'h').secrets, ['Bearer tok-secret-1', 'p4rt', 'tok-secret-1']);
  });

  it('labels a server with its command line or URL as written, never with values', async () => {
    const loaded = await loadWith(
      tree,
      {
        mcpServers: {
          s: { command: 'npx', args: ['-y', '@scope/server', '${WORKSPACE}', '--key=${TOKEN}'] },
          h: { url: 'https://example.com/mcp?key=${TOKEN}', headers: { A: '${TOKEN}' } },
        },
      },
      { WORKSPACE: '/ws', TOKEN: 'tok-secret-1' },
    );
    assert.equal(stdioOf(loaded, 's').display, 'npx -y @scope/server ${WORKSPACE} --key=${TOKEN}');
    assert.equal(httpOf(loaded, 'h').display, 'https://example.com/mcp?key=${TOKEN}');
    assert.equal(httpOf(loaded, 'h').url, 'https://example.com/mcp?key=tok-secret-1');
  });

  it('freezes what it returns', async () => {
    const loaded = await loadWith(tree, { mcpServers: { s: { command: 'x', args: ['a'], env: { A: 'b' } } } });
    const s = stdioOf(loaded, 's');
    assert.ok(Object.isFrozen(s));
    assert.ok(Object.isFrozen(s.args));
    assert.ok(Object.isFrozen(s.env));
    assert.ok(Object.isFrozen(s.secrets));
  });
});
