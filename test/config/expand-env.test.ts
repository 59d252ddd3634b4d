import assert from 'node:assert/strict';
import { ConfigError, EnvVarMissingError } from '../../src/common/errors.js';
import { createExpandContext, expandVars } from '../../src/config/expand-env.js';
import { createTempTree, type TempTree } from './temp-machine.js';
import { configErrorOf, errorOf, httpOf, loadWith, stdioOf } from './load-helpers.js';

const ENV = { HOME: '/home/u', TOKEN: 'tok-123456', EMPTY: '', A_1: 'a1' };

function expand(value: string): { out: string; missing: string[]; substituted: string[]; problems: number } {
  const context = createExpandContext(ENV);
  const out = expandVars(value, '$.x', context);
  return { out, missing: [...context.missing], substituted: context.substituted, problems: context.problems.length };
}

describe('config/expand-env', () => {
  it('substitutes ${NAME} and keeps every other $ literal', () => {
    const cases: [string, string][] = [
      ['plain', 'plain'],
      ['${HOME}/x', '/home/u/x'],
      ['a${A_1}b${TOKEN}', 'aa1btok-123456'],
      ['${EMPTY}!', '!'],
      ['$', '$'],
      ['cost: 5$', 'cost: 5$'],
      ['$HOME', '$HOME'],
      ['$(whoami)', '$(whoami)'],
      ['`id`', '`id`'],
      ['$$', '$$'],
      ['$$HOME', '$$HOME'],
      ['{HOME}', '{HOME}'],
      ['$${HOME}', '${HOME}'],
      ['$${', '${'],
      ['x$${HOME}y${HOME}', 'x${HOME}y/home/u'],
      ['$$${HOME}', '$${HOME}'],
      ['${HOME}}', '/home/u}'],
    ];
    for (const [input, output] of cases) {
      const result = expand(input);
      assert.equal(result.out, output, input);
      assert.equal(result.problems, 0, input);
      assert.deepEqual(result.missing, [], input);
    }
  });

  it('records substituted values and missing names', () => {
    const result = expand('${TOKEN}:${NOPE}:${HOME}:${NOPE}:${constructor}:${__proto__}');
    assert.deepEqual(result.substituted, ['tok-123456', '/home/u']);
    assert.deepEqual(result.missing, ['NOPE', 'constructor', '__proto__']);
  });

  it('rejects every other ${...} form', () => {
    for (const input of ['${FOO:-x}', '${}', '${1A}', '${A B}', 'abc${', '${HOME', '${A${B}}', '${HOME-x}']) {
      assert.equal(expand(input).problems, 1, input);
    }
  });

  describe('through loadConfig', () => {
    let tree: TempTree;
    let file: string;
    before(async () => {
      tree = await createTempTree();
      file = `${tree.home}/.config/berry/mcp.json`;
    });
    after(async () => {
      await tree.remove();
    });

    it('expands command, args, env values, cwd, url and header values', async () => {
      const loaded = await loadWith(
        tree,
        {
          mcpServers: {
            s: {
              command: '${BIN}/server',
              args: ['--root', '${WORKSPACE}', '$${LITERAL}'],
              env: { KEY: '${TOKEN}', PLAIN: '${WORKSPACE}x' },
              cwd: '${WORKSPACE}/sub',
            },
            h: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
          },
        },
        { BIN: '/opt/bin', WORKSPACE: '/ws', TOKEN: 'sekrit-token', HOST: 'example.com' },
      );
      const s = stdioOf(loaded, 's');
      assert.equal(s.command, '/opt/bin/server');
      assert.deepEqual(s.args, ['--root', '/ws', '${LITERAL}']);
      assert.deepEqual({ ...s.env }, { KEY: 'sekrit-token', PLAIN: '/wsx' });
      assert.equal(s.cwd, '/ws/sub');
      const h = httpOf(loaded, 'h');
      assert.equal(h.url, 'https://example.com/mcp');
      assert.deepEqual({ ...h.headers }, { Authorization: 'Bearer sekrit-token' });
    });

    it('does not expand env or header names', async () => {
      const loaded = await loadWith(tree, { mcpServers: { s: { command: 'x', env: { '${A}': 'v' } } } }, { A: 'aaaa' });
      assert.deepEqual(Object.keys(stdioOf(loaded, 's').env), ['${A}']);
    });

    it('reports every missing variable of a server in one EnvVarMissingError, without values', async () => {
      const loaded = await loadWith(
        tree,
        {
          mcpServers: {
            docs: { url: 'https://${HOST}/${ZED}', headers: { Authorization: 'Bearer ${DOCS_TOKEN}', 'X-Other': '${ZED}${PRESENT}' } },
            fs: { command: 'x', args: ['${DOCS_TOKEN}'] },
            ok: { command: 'x', args: ['${PRESENT}'] },
          },
        },
        { PRESENT: 'present-value-1234' },
      );
      const docs = errorOf(loaded, 'docs');
      assert.ok(docs instanceof EnvVarMissingError);
      assert.equal(docs.code, 'MCP_ENV_MISSING');
      assert.deepEqual(docs.names, ['DOCS_TOKEN', 'HOST', 'ZED']);
      assert.equal(docs.server, 'docs');
      assert.equal(docs.file, file);
      assert.equal(
        docs.message,
        `Server "docs": environment variables DOCS_TOKEN, HOST, ZED are not set on the target machine (used in ${file}). Set them or edit the entry.`,
      );
      assert.doesNotMatch(docs.message, /present-value/);
      const fs = errorOf(loaded, 'fs');
      assert.ok(fs instanceof EnvVarMissingError);
      assert.equal(fs.message, `Server "fs": environment variable DOCS_TOKEN is not set on the target machine (used in ${file}). Set it or edit the entry.`);
      assert.deepEqual(stdioOf(loaded, 'ok').args, ['present-value-1234']);
    });

    it('rejects unsupported ${...} forms with the field path, before missing variables', async () => {
      const loaded = await loadWith(tree, {
        mcpServers: {
          a: { command: 'x', args: ['ok', '${FOO:-secret-default}'], env: { B: '${MISSING}' } },
          b: { url: 'http://h/', headers: { 'X-A': 'abc${' } },
          c: { command: 'x', cwd: '${}' },
        },
      });
      const a = configErrorOf(loaded, 'a');
      assert.ok(a instanceof ConfigError);
      assert.equal(a.jsonPath, '$.mcpServers.a.args[1]');
      assert.equal(a.server, 'a');
      assert.match(
        a.message,
        /\$\.mcpServers\.a\.args\[1\] contains an unsupported "\$\{\.\.\.\}" form at character 1; only \$\{NAME\} references are supported/,
      );
      assert.doesNotMatch(a.message, /secret-default/);
      const b = configErrorOf(loaded, 'b');
      assert.equal(b.jsonPath, '$.mcpServers.b.headers["X-A"]');
      assert.match(b.message, /contains an unterminated "\$\{" at character 4/);
      assert.equal(configErrorOf(loaded, 'c').jsonPath, '$.mcpServers.c.cwd');
    });

    it('rejects a URL that is not absolute http(s), quoting it as written', async () => {
      const loaded = await loadWith(
        tree,
        {
          mcpServers: {
            rel: { url: '/mcp' },
            ftp: { url: 'ftp://example.com/' },
            viaVar: { url: '${BASE}/mcp' },
            ok: { url: 'http://127.0.0.1:8080/mcp' },
          },
        },
        { BASE: 'not-a-url-secret' },
      );
      const rel = configErrorOf(loaded, 'rel');
      assert.equal(rel.jsonPath, '$.mcpServers.rel.url');
      assert.match(rel.message, /\$\.mcpServers\.rel\.url must be an absolute http:\/\/ or https:\/\/ URL, got "\/mcp"\. Fix/);
      assert.equal(configErrorOf(loaded, 'ftp').jsonPath, '$.mcpServers.ftp.url');
      const viaVar = errorOf(loaded, 'viaVar');
      assert.match(viaVar.message, /got "\$\{BASE\}\/mcp" \(after substituting variables\)/);
      assert.doesNotMatch(viaVar.message, /not-a-url-secret/);
      assert.equal(httpOf(loaded, 'ok').url, 'http://127.0.0.1:8080/mcp');
    });

    it('rejects values that become unusable after expansion, without quoting them', async () => {
      const loaded = await loadWith(
        tree,
        {
          mcpServers: {
            emptyCommand: { command: '${EMPTY}' },
            header: { url: 'http://h/', headers: { A: 'x${NL}' } },
            nul: { command: 'x', env: { V: '${NUL}' } },
          },
        },
        { EMPTY: '', NL: 'line1\r\nInjected: secret-ish', NUL: 'a\0b-secret' },
      );
      assert.equal(configErrorOf(loaded, 'emptyCommand').jsonPath, '$.mcpServers.emptyCommand.command');
      const header = configErrorOf(loaded, 'header');
      assert.equal(header.jsonPath, '$.mcpServers.header.headers.A');
      assert.doesNotMatch(header.message, /secret-ish/);
      assert.equal(configErrorOf(loaded, 'nul').jsonPath, '$.mcpServers.nul.env.V');
    });
  });
});
