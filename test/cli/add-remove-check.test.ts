import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { type HttpFixture, startHttpFixture } from '../support/fixture-servers.js';
import { everythingPath, faultServerPath, filesystemPath, FIXTURES_DIR } from '../support/paths.js';
import type { CliResult } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const node = process.execPath;
const q = JSON.stringify;

describe('berry-mcp add, remove and check (as a person runs them)', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;
  let home: string;
  let http: HttpFixture;

  before(async () => {
    tmp = tempDir();
    home = join(tmp.dir, 'home');
    mkdirSync(join(home, '.cache'), { recursive: true });
    http = await startHttpFixture();
  });
  after(async () => {
    await http?.close();
    tmp.cleanup();
  });

  /** A fresh folder with mcp.json holding `text`; returns the folder. */
  function project(name: string, text?: string): string {
    const dir = join(tmp.dir, name);
    mkdirSync(dir, { recursive: true });
    if (text !== undefined) writeFileSync(join(dir, 'mcp.json'), text);
    return dir;
  }
  const cli = (dir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> => berry(args, { cwd: dir, env: { HOME: home, ...env } });
  const file = (dir: string): string => readFileSync(join(dir, 'mcp.json'), 'utf8');

  it("add -- COMMAND … checks the server, then appends exactly the new entry in the file's style, and nothing else", async () => {
    const before = '{\n    "mcpServers": {\n        "later": {\n            "command": "x",\n            "enabled": false\n        }\n    }\n}\n';
    const dir = project('stdio', before);
    const added = await cli(dir, ['add', 'ev', '--config', 'mcp.json', '--', node, everythingPath]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^Added "ev" \(stdio\) to .*mcp\.json: connected, \d+ tools\.\n$/);
    assert.equal(
      file(dir),
      `{\n    "mcpServers": {\n        "later": {\n            "command": "x",\n            "enabled": false\n        },\n        "ev": {\n            "command": ${q(node)},\n            "args": [\n                ${q(everythingPath)}\n            ]\n        }\n    }\n}\n`,
    );
    assert.deepEqual(readdirSync(dir), ['mcp.json'], 'no temp file left behind');
    const listed = await cli(dir, ['list', 'ev', '--config', 'mcp.json', '--json']);
    assert.equal((JSON.parse(listed.stdout) as { servers: { status: string }[] }).servers[0]!.status, 'connected');
  });

  it('one word after -- is split as a shell would, quotes honoured, ${VAR} kept for the target machine', async () => {
    const dir = project('quoted', '{ "mcpServers": {} }');
    mkdirSync(join(dir, 'my docs'));
    const line = `${node} '${filesystemPath}' "${join(dir, 'my docs')}" \${BERRY_ADD_TEST_DIR}`;
    const added = await cli(dir, ['add', 'fs', '--config', 'mcp.json', '--', line], { BERRY_ADD_TEST_DIR: dir });
    assert.equal(added.code, 0, added.stderr);
    const entry = (JSON.parse(file(dir)) as { mcpServers: Record<string, unknown> }).mcpServers['fs'];
    assert.deepEqual(entry, { command: node, args: [filesystemPath, join(dir, 'my docs'), '${BERRY_ADD_TEST_DIR}'] });
    const unterminated = await cli(dir, ['add', 'fs2', '--config', 'mcp.json', '--', `${node} '${filesystemPath}`]);
    assert.equal(unterminated.code, 2);
    assert.match(unterminated.stderr, /unterminated single quote.*\nsee `berry-mcp help add`\n$/);
  });

  it('add NAME URL --header adds an HTTP entry; the header is expanded only when used', async () => {
    const dir = project('http', '{\n  "mcpServers": {}\n}\n');
    const env = { BERRY_ADD_TEST_HEADER: 'from-the-environment' };
    const added = await cli(dir, ['add', 'web', http.url, '--header', 'X-Test=${BERRY_ADD_TEST_HEADER}', '--config', 'mcp.json'], env);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stderr, '', 'a ${VAR} header is no secret literal');
    assert.equal(
      file(dir),
      `{\n  "mcpServers": {\n    "web": {\n      "url": ${q(http.url)},\n      "headers": {\n        "X-Test": "\${BERRY_ADD_TEST_HEADER}"\n      }\n    }\n  }\n}\n`,
    );
    const called = await cli(dir, ['call', 'web', 'whoami', '--json', '--config', 'mcp.json'], env);
    assert.equal(called.code, 0, called.stderr);
    const headers = (JSON.parse(called.stdout) as { structuredContent: { headers: Record<string, string> } }).structuredContent.headers;
    // The fixture hands the header back, and a configured secret is masked in results: the mask
    // (not the literal ${BERRY_ADD_TEST_HEADER}) is the expanded value arriving.
    assert.equal(headers['x-test'], '***');
    assert.ok(!called.stdout.includes('from-the-environment'));
  });

  it('a server that fails the check is not saved: exit 2, the error list gives, the file byte for byte as it was', async () => {
    const before = '{"mcpServers": {"ok": {"command": "x", "enabled": false}}}';
    const dir = project('failing', before);
    const cases: [string[], RegExp][] = [
      [
        ['add', 'bad', '--', 'berry-no-such-command-xyz'],
        /^bad  error  MCP_CONNECT_FAILED\n  Server "bad" failed to start \(berry-no-such-command-xyz\): command not found/,
      ],
      [['add', 'crash', '--', node, '-e', 'process.exit(3)'], /^crash  error  MCP_CONNECT_FAILED\n.*exited with code 3/],
      [['add', 'unset', '--', node, '${BERRY_ADD_TEST_UNSET}'], /^unset  error  MCP_ENV_MISSING\n.*BERRY_ADD_TEST_UNSET/],
      [
        ['add', 'signin', http.url.replace('/mcp', '/auth-mcp')],
        /^signin  auth_required  http\n[\s\S]*save it with --no-check, then run berry-mcp auth signin\)/,
      ],
      [['add', 'gone', 'http://127.0.0.1:1/mcp'], /^gone  error  MCP_CONNECT_FAILED\n/],
    ];
    for (const [args, expected] of cases) {
      const result = await cli(dir, ['--config', 'mcp.json', ...args]);
      assert.equal(result.code, 2, `${args.join(' ')}\n${result.stderr}`);
      assert.match(result.stderr, expected, args.join(' '));
      assert.match(result.stderr, /was not added: it did not pass the check, so .*mcp\.json is unchanged/);
      assert.equal(file(dir), before, args.join(' '));
      assert.deepEqual(readdirSync(dir), ['mcp.json']);
    }
    // The same error as list gives for the entry once it is saved unchecked.
    const failed = await cli(dir, ['add', 'bad', '--config', 'mcp.json', '--', 'berry-no-such-command-xyz']);
    const saved = await cli(dir, ['add', 'bad', '--no-check', '--config', 'mcp.json', '--', 'berry-no-such-command-xyz']);
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /Added "bad" \(stdio\) to .*, not checked\./);
    const listed = await cli(dir, ['list', 'bad', '--config', 'mcp.json']);
    const block = (text: string): string => text.split('\n\n')[0]!;
    assert.equal(block(failed.stderr), block(listed.stdout));
  });

  it('an invalid entry is refused with the config error list reports (exit 2), nothing written', async () => {
    const dir = project('invalid', '{"mcpServers": {}}');
    const result = await cli(dir, ['add', 'web', 'https://example.com/mcp', '--header', 'Bad Name=1', '--config', 'mcp.json']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Server "web" in .*mcp\.json is invalid: \$\.mcpServers\.web\.headers\["Bad Name"\].*\[MCP_CONFIG_INVALID\]/);
    assert.equal(file(dir), '{"mcpServers": {}}');
  });

  it('--no-check writes without starting the server; the check does start it', async () => {
    const dir = project('nocheck', '{"mcpServers": {}}');
    const marker = join(dir, 'started');
    const script = `require('fs').writeFileSync(${q(marker)}, 'x')`;
    const unchecked = await cli(dir, ['add', 'm', '--no-check', '--json', '--config', 'mcp.json', '--', node, '-e', script]);
    assert.equal(unchecked.code, 0, unchecked.stderr);
    assert.deepEqual(JSON.parse(unchecked.stdout), { added: true, configPath: join(dir, 'mcp.json'), check: null });
    assert.ok(!existsSync(marker), 'the server was not started');
    assert.deepEqual((JSON.parse(file(dir)) as { mcpServers: Record<string, unknown> }).mcpServers['m'], { command: node, args: ['-e', script] });
    const checked = await cli(dir, ['add', 'm2', '--json', '--config', 'mcp.json', '--', node, '-e', script]);
    assert.equal(checked.code, 2, 'the marker script is no MCP server');
    const report = JSON.parse(checked.stdout) as { added: boolean; check: { status: string; error: { code: string } } };
    assert.equal(report.added, false);
    assert.equal(report.check.error.code, 'MCP_CONNECT_FAILED');
    assert.ok(existsSync(marker), 'the check started it');
  });

  it('an existing name is refused unless --replace, which rewrites the entry in its place', async () => {
    const before = '{\n  "mcpServers": {\n    "a": { "command": "x", "enabled": false },\n    "b": { "command": "y", "enabled": false }\n  }\n}\n';
    const dir = project('replace', before);
    const refused = await cli(dir, ['add', 'a', '--no-check', '--config', 'mcp.json', '--', 'z']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /server "a" is already in .*; pass --replace to overwrite it/);
    assert.equal(file(dir), before);
    const replaced = await cli(dir, ['add', 'a', '--replace', '--disabled', '--no-check', '--config', 'mcp.json', '--', 'z', '--flag']);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.equal(
      file(dir),
      '{\n  "mcpServers": {\n    "a": { "command": "z", "args": ["--flag"], "enabled": false },\n    "b": { "command": "y", "enabled": false }\n  }\n}\n',
    );
  });

  it('--disabled saves "enabled": false after checking the server enabled; --env and --cwd go into the entry', async () => {
    const dir = project('disabled', '{"mcpServers": {}}');
    const added = await cli(dir, ['add', 'ev', '--disabled', '--env', 'GREETING=hi', '--cwd', 'sub', '--config', 'mcp.json', '--', node, everythingPath]);
    assert.equal(added.code, 2, 'cwd sub does not exist yet, so the check fails');
    mkdirSync(join(dir, 'sub'));
    const again = await cli(dir, ['add', 'ev', '--disabled', '--env', 'GREETING=hi', '--cwd', 'sub', '--config', 'mcp.json', '--', node, everythingPath]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((JSON.parse(file(dir)) as { mcpServers: Record<string, unknown> }).mcpServers['ev'], {
      command: node,
      args: [everythingPath],
      env: { GREETING: 'hi' },
      cwd: join(dir, 'sub'),
      enabled: false,
    });
  });

  it('names a JavaScript object knows keep working: a server "__proto__", env keys "constructor" and "toString", argument keys "__proto__" (only a variable or header "__proto__" is refused)', async () => {
    const dir = project('object-names', '{"mcpServers": {}}');
    const wire = join(dir, 'wire.log');
    const fault = (name: string, env: string[]): Promise<CliResult> =>
      cli(dir, ['add', name, '--no-check', '--config', 'mcp.json', ...env, '--', node, faultServerPath]);
    assert.equal((await fault('__proto__', [])).code, 0);
    assert.equal((await fault('constructor', ['--env', 'constructor=c', '--env', 'toString=t'])).code, 0);
    const who = await cli(dir, ['call', 'constructor', 'whoami', '{"names":["constructor","toString"]}', '--config', 'mcp.json']);
    assert.equal(who.code, 0, who.stderr);
    assert.deepEqual((JSON.parse(who.stdout) as { env: unknown }).env, { constructor: 'c', toString: 't' });
    const echo = await cli(dir, ['call', '__proto__', 'echo', 'text=hi', '--config', 'mcp.json']);
    assert.equal(echo.stdout, 'hi\n', echo.stderr);
    // Argument keys go to the server as given, in both forms (what it does with them is its business).
    const added = await cli(dir, [
      'add',
      'apps',
      '--no-check',
      '--config',
      'mcp.json',
      '--env',
      `FIXTURE_WIRE_LOG=${wire}`,
      '--',
      node,
      join(FIXTURES_DIR, 'app-tools-server.mjs'),
    ]);
    assert.equal(added.code, 0, added.stderr);
    for (const args of [['{"__proto__":{"x":1},"constructor":2}'], ['__proto__=1', 'constructor=2']]) {
      const called = await cli(dir, ['call', 'apps', 'echo_args', ...args, '--config', 'mcp.json']);
      assert.equal(called.code, 0, called.stderr);
    }
    const sent = readFileSync(wire, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"tools/call"'))
      .map((line) => (JSON.parse(line) as { params: { arguments: object } }).params.arguments);
    assert.deepEqual(
      sent.map((a) => Object.entries(a)),
      [
        [
          ['__proto__', { x: 1 }],
          ['constructor', 2],
        ],
        [
          ['__proto__', 1],
          ['constructor', 2],
        ],
      ],
    );
    const removed = await cli(dir, ['remove', '__proto__', '--config', 'mcp.json']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(Object.keys((JSON.parse(file(dir)) as { mcpServers: object }).mcpServers), ['constructor', 'apps']);
  });

  it('a secret typed as a literal gets a warning that suggests ${VAR} and never shows the value', async () => {
    const dir = project('secret', '{"mcpServers": {}}');
    const secret = 'sk-live-0123456789abcdefABCDEF';
    const result = await cli(dir, [
      'add',
      'docs',
      'https://example.com/mcp',
      '--no-check',
      '--header',
      `Authorization=Bearer ${secret}`,
      '--config',
      'mcp.json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^berry-mcp: warning: the value of header Authorization looks like a secret typed as a literal.*write \$\{DOCS_TOKEN\} instead\.\n$/,
    );
    assert.ok(!result.stderr.includes(secret) && !result.stdout.includes(secret));
    const env = await cli(dir, ['add', 'gh', '--no-check', '--env', `GITHUB_TOKEN=${secret}`, '--config', 'mcp.json', '--', 'x']);
    assert.match(env.stderr, /--env GITHUB_TOKEN looks like a secret.*\$\{GITHUB_TOKEN\}/);
    assert.ok(!env.stderr.includes(secret));
  });

  it('with no --config it creates ~/.config/berry/mcp.json (folder 0700, file 0600)', async () => {
    const ownHome = join(tmp.dir, 'fresh-home');
    mkdirSync(ownHome);
    const result = await berry(['add', 'ev', '--', node, everythingPath], { cwd: tmp.dir, env: { HOME: ownHome } });
    assert.equal(result.code, 0, result.stderr);
    const path = join(ownHome, '.config', 'berry', 'mcp.json');
    assert.equal(
      readFileSync(path, 'utf8'),
      `{\n  "mcpServers": {\n    "ev": {\n      "command": ${q(node)},\n      "args": [\n        ${q(everythingPath)}\n      ]\n    }\n  }\n}\n`,
    );
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(ownHome, '.config', 'berry')).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(join(ownHome, '.config', 'berry')), ['mcp.json']);
  });

  it('remove cuts one entry and keeps the rest byte for byte; an unknown name is exit 2 with "did you mean"', async () => {
    const before =
      '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "docs": {\n      "url": "https://example.com/mcp"\n    },\n    "c": { "command": "z" }\n  }\n}\n';
    const dir = project('remove', before);
    const removed = await cli(dir, ['remove', 'docs', '--config', 'mcp.json']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /^Removed "docs" from .*mcp\.json\.\n$/);
    assert.equal(file(dir), '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "c": { "command": "z" }\n  }\n}\n');
    assert.deepEqual(readdirSync(dir), ['mcp.json']);
    const unknown = await cli(dir, ['remove', 'dosc', '--config', 'mcp.json']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown server "dosc"\. Configured: a, c .*\[MCP_UNKNOWN_SERVER\]/);
    // A relative --config resolves against --cwd, as for every command.
    const elsewhere = await cli(tmp.dir, ['remove', 'c', '--cwd', dir, '--config', 'mcp.json', '--json']);
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.deepEqual(JSON.parse(elsewhere.stdout), { removed: 'c', configPath: join(dir, 'mcp.json') });
    assert.equal(file(dir), '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}\n');
    const none = await cli(dir, ['remove', 'x', '--config', 'absent.json']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no servers are configured \(.*absent\.json does not exist\)/);
  });

  it('check dials every enabled server and reports like list: exit 0 when all connect, 2 when any fails', async () => {
    const dir = project(
      'check',
      JSON.stringify(
        {
          mcpServers: {
            ev: { command: node, args: [everythingPath] },
            broken: { command: 'berry-no-such-command-xyz' },
            off: { command: 'x', enabled: false },
          },
        },
        null,
        2,
      ),
    );
    const all = await cli(dir, ['check', '--config', 'mcp.json']);
    assert.equal(all.code, 2, all.stderr);
    assert.match(all.stdout, /^ev  connected  stdio  \d+ tools/m);
    assert.match(all.stdout, /^broken  error  MCP_CONNECT_FAILED$/m);
    assert.match(all.stdout, /3 servers: 1 connected, 1 error, 1 disabled \(config: .*\)\n$/);
    const one = await cli(dir, ['check', 'ev', '--config', 'mcp.json']);
    assert.equal(one.code, 0, one.stderr);
    const json = await cli(dir, ['check', 'broken', '--json', '--config', 'mcp.json']);
    assert.equal(json.code, 2);
    assert.equal((JSON.parse(json.stdout) as { servers: { status: string }[] }).servers[0]!.status, 'error');
    // list answers from the catalog ev's check saved; check never does.
    const listed = await cli(dir, ['list', 'ev', '--json', '--config', 'mcp.json']);
    assert.ok((JSON.parse(listed.stdout) as { servers: { cached?: unknown }[] }).servers[0]!.cached, 'list used the saved catalog');
    const checked = await cli(dir, ['check', 'ev', '--json', '--config', 'mcp.json']);
    assert.equal((JSON.parse(checked.stdout) as { servers: { cached?: unknown }[] }).servers[0]!.cached, undefined);
  });

  it("usage mistakes are exit 2 with the command's help pointer", async () => {
    const dir = project('usage', '{"mcpServers": {}}');
    const cases: [string[], RegExp][] = [
      [['add', 'x'], /add needs a URL \(https:\/\/…\) or -- COMMAND \[ARG …\] after NAME/],
      [['add'], /add needs NAME/],
      [['add', 'x', '--header', 'A=1', '--', 'node'], /--header applies to HTTP servers/],
      [['add', 'x', 'https://h/mcp', '--env', 'A=1'], /--env applies to stdio servers/],
      [['add', 'x', '--env', 'NOEQUALS', '--', 'node'], /--env needs KEY=VALUE/],
      [['add', 'x', '--env', 'A=1', '--env', 'A=2', '--', 'node'], /--env A is given twice/],
      [['remove'], /remove needs NAME/],
    ];
    for (const [args, expected] of cases) {
      const result = await cli(dir, ['--config', 'mcp.json', ...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
      assert.match(result.stderr, new RegExp(`see \`berry-mcp help ${args[0]}\`\\n$`), args.join(' '));
    }
    assert.equal(file(dir), '{"mcpServers": {}}');
  });
});
