// Attacks on the edits of mcp.json (`berry-mcp add` / `remove`, src/config/edit/write-config.ts) and on
// the names they write. A config kept elsewhere behind a symlink (dotfiles, a shared folder) must
// stay the config: an atomic rename over the link would turn the link into a file, and the real
// file would silently stop being read. And a name a JavaScript object cannot hold ("__proto__")
// must be refused, not dropped without a word. Each test fails without its fix.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { faultServerPath } from '../support/paths.js';
import type { CliResult } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const EMPTY = '{\n  "mcpServers": {}\n}\n';

describe('adversarial: edits of mcp.json', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('berry-edits-')));
  afterEach(() => tmp.cleanup());

  const cli = (args: string[]): Promise<CliResult> => berry(args, { cwd: tmp.dir, env: { HOME: join(tmp.dir, 'home') } });
  const add = (config: string, name = 'fault', extra: string[] = []): Promise<CliResult> =>
    cli(['add', name, '--no-check', '--config', config, ...extra, '--', 'node', faultServerPath]);
  const dir = (...parts: string[]): string => {
    const path = join(tmp.dir, ...parts);
    mkdirSync(path, { recursive: true });
    return path;
  };
  /** No temp file left beside the config or its target. */
  const noTemp = (...folders: string[]): void => {
    for (const folder of folders)
      assert.deepEqual(
        readdirSync(folder).filter((name) => name.endsWith('.tmp')),
        [],
        folder,
      );
  };

  describe('a symlinked mcp.json is edited where it leads, and stays a link', () => {
    it('a relative link into another folder: the target gets the entry and keeps its mode exactly (0664)', async () => {
      const real = join(dir('dotfiles'), 'mcp.json');
      writeFileSync(real, EMPTY);
      chmodSync(real, 0o664);
      const link = join(dir('project'), 'mcp.json');
      symlinkSync('../dotfiles/mcp.json', link);
      const added = await add(link);
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /\(a symlink: written to .*dotfiles\/mcp\.json\)/);
      assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
      assert.equal(readlinkSync(link), '../dotfiles/mcp.json');
      assert.match(readFileSync(real, 'utf8'), /"fault": \{/);
      assert.equal(statSync(real).mode & 0o777, 0o664);
      noTemp(join(tmp.dir, 'dotfiles'), join(tmp.dir, 'project'));
      // remove goes the same way.
      const removed = await cli(['remove', 'fault', '--config', link]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.ok(lstatSync(link).isSymbolicLink());
      assert.equal(readFileSync(real, 'utf8'), EMPTY);
    });

    it('a chain of links (relative, then absolute): every link stays, the last file is edited', async () => {
      const real = join(dir('store'), 'real.json');
      writeFileSync(real, EMPTY);
      const middle = join(dir('links'), 'middle.json');
      symlinkSync(real, middle);
      const link = join(dir('project'), 'mcp.json');
      symlinkSync('../links/middle.json', link);
      const added = await add(link);
      assert.equal(added.code, 0, added.stderr);
      assert.ok(lstatSync(link).isSymbolicLink() && lstatSync(middle).isSymbolicLink());
      assert.match(readFileSync(real, 'utf8'), /"fault"/);
    });

    it('a relative "../" target read from the folder the link really is in, not the path it was reached by', async () => {
      // ~/.config/berry is itself a link to dotfiles/berry, whose mcp.json names ../shared/mcp.json.
      const real = join(dir('dotfiles', 'shared'), 'mcp.json');
      writeFileSync(real, EMPTY);
      symlinkSync('../shared/mcp.json', join(dir('dotfiles', 'berry'), 'mcp.json'));
      dir('home', '.config');
      symlinkSync(join(tmp.dir, 'dotfiles', 'berry'), join(tmp.dir, 'home', '.config', 'berry'));
      const config = join(tmp.dir, 'home', '.config', 'berry', 'mcp.json');
      const added = await add(config);
      assert.equal(added.code, 0, added.stderr);
      assert.match(readFileSync(real, 'utf8'), /"fault"/);
      assert.equal(existsSync(join(tmp.dir, 'home', '.config', 'shared')), false, 'nothing written where a lexical ".." points');
      assert.ok(lstatSync(join(tmp.dir, 'dotfiles', 'berry', 'mcp.json')).isSymbolicLink());
    });

    it('a dangling link: the file is created where it points (0600), the link stays', async () => {
      dir('dotfiles');
      const link = join(dir('project'), 'mcp.json');
      symlinkSync('../dotfiles/new.json', link);
      const added = await add(link);
      assert.equal(added.code, 0, added.stderr);
      const real = join(tmp.dir, 'dotfiles', 'new.json');
      assert.match(readFileSync(real, 'utf8'), /"fault"/);
      assert.equal(statSync(real).mode & 0o777, 0o600);
      assert.ok(lstatSync(link).isSymbolicLink());
    });

    it('a link into a folder that does not exist: MCP_CONFIG_WRITE_FAILED saying where, the link left alone', async () => {
      const link = join(dir('project'), 'mcp.json');
      symlinkSync('../nowhere/mcp.json', link);
      const added = await add(link);
      assert.equal(added.code, 1, added.stderr);
      assert.match(added.stderr, /Cannot write the MCP config file .*project\/mcp\.json: ENOENT at .*nowhere\. .*\[MCP_CONFIG_WRITE_FAILED\]/);
      assert.ok(lstatSync(link).isSymbolicLink());
      assert.deepEqual(readdirSync(join(tmp.dir, 'project')), ['mcp.json']);
    });

    it('a link to a folder, or a loop of links: refused as list refuses it (exit 2), nothing replaced', async () => {
      dir('folder');
      const toFolder = join(dir('project'), 'mcp.json');
      symlinkSync('../folder', toFolder);
      const looped = join(tmp.dir, 'project', 'loop.json');
      symlinkSync('loop.json', looped);
      for (const [config, why] of [
        [toFolder, /it is a directory/],
        [looped, /ELOOP/],
      ] as const) {
        const added = await add(config);
        assert.equal(added.code, 2, added.stderr);
        assert.match(added.stderr, why);
        assert.match(added.stderr, /\[MCP_CONFIG_INVALID\]/);
        assert.ok(lstatSync(config).isSymbolicLink());
      }
      assert.deepEqual(readdirSync(join(tmp.dir, 'folder')), []);
    });
  });

  describe('"__proto__" as a name is refused, never dropped', () => {
    it('add --env __proto__=… and --header "__proto__: …" are exit 2, naming the key and why; nothing written', async () => {
      const config = join(dir('project'), 'mcp.json');
      writeFileSync(config, EMPTY);
      const env = await add(config, 'fault', ['--env', '__proto__=x']);
      assert.equal(env.code, 2);
      assert.match(
        env.stderr,
        /^berry-mcp: --env __proto__ is refused: berry-mcp cannot pass on a variable named "__proto__" \(a JavaScript object drops that key\); rename it\n/,
      );
      const header = await cli(['add', 'web', '--no-check', '--config', config, '--header', '__proto__: x', 'https://example.com/mcp']);
      assert.equal(header.code, 2);
      assert.match(header.stderr, /--header __proto__ is refused/);
      assert.equal(readFileSync(config, 'utf8'), EMPTY);
    });

    it('an entry whose env or headers hold "__proto__" is MCP_CONFIG_INVALID at that path, and its server never starts', async () => {
      const config = join(dir('project'), 'mcp.json');
      const marker = join(tmp.dir, 'started');
      // The server would write the marker: it must not run with a variable silently missing.
      writeFileSync(
        config,
        `{"mcpServers": {
          "local": {"command": "sh", "args": ["-c", "touch ${marker}"], "env": {"__proto__": "x", "KEEP": "y"}},
          "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"__proto__": "x"}}
        }}`,
      );
      const listed = await cli(['list', '--json', '--config', config]);
      assert.equal(listed.code, 0, listed.stderr);
      const servers = (JSON.parse(listed.stdout) as { servers: { name: string; status: string; error?: { code: string; message: string } }[] }).servers;
      assert.deepEqual(
        servers.map((s) => [s.name, s.status, s.error?.code]),
        [
          ['local', 'error', 'MCP_CONFIG_INVALID'],
          ['web', 'error', 'MCP_CONFIG_INVALID'],
        ],
      );
      assert.match(servers[0]!.error!.message, /\$\.mcpServers\.local\.env\.__proto__ cannot be passed on/);
      assert.match(servers[1]!.error!.message, /\$\.mcpServers\.web\.headers\.__proto__ cannot be passed on/);
      assert.equal(existsSync(marker), false);
    });
  });
});
