import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { LAUNCHER } from '../support/berry-cli.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

// The pages whose commands must work as pasted from the repo root (docs/ssh.md needs a real host).
const PAGES = ['README.md', 'docs/cli.md', 'docs/scripts.md', 'docs/typings.md'];

/** Every `berry-mcp …` line of the pages' sh blocks (the README's set-up puts it on the PATH), trailing comments dropped. */
function shownCommands(): { page: string; line: string }[] {
  const found: { page: string; line: string }[] = [];
  for (const page of PAGES) {
    const text = readFileSync(join(PROJECT_ROOT, page), 'utf8');
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      for (const raw of block[1]!.split('\n')) {
        const line = raw.replace(/\s+#\s.*$/, '').trim();
        // berry-mcp is not on the npm registry: `npx berry-mcp` fails outside the clone.
        if (/(^|\| )npx berry-mcp /.test(line)) throw new Error(`${page} shows npx berry-mcp: ${line}`);
        if (/(^|\| )berry-mcp /.test(line)) found.push({ page, line });
      }
    }
  }
  return found;
}

describe('the commands the docs show', function () {
  this.timeout(120_000);

  it("each works as pasted from the repo root after the README's set-up", async () => {
    const commands = shownCommands();
    assert.ok(commands.length >= 8, `found ${commands.length} commands`);
    // The README's "Adding servers" lines, run in order against the config in this test's HOME.
    const adding = commands.filter((c) => c.page === 'README.md' && /^berry-mcp (add|check|remove)\b/.test(c.line));
    assert.ok(adding.length >= 4, `the README's add, check and remove lines are run: ${adding.map((c) => c.line).join('; ')}`);
    const tmp = tempDir();
    try {
      // The repo root as seen by the commands, but files they write land in a temp dir.
      symlinkSync(join(PROJECT_ROOT, 'examples'), join(tmp.dir, 'examples'));
      // examples/mcp.json starts its servers as `node node_modules/…` from the repo root.
      symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(tmp.dir, 'node_modules'));
      mkdirSync(join(tmp.dir, 'home', '.cache'), { recursive: true });
      const env = {
        HOME: join(tmp.dir, 'home'),
        // Not node_modules/.bin: pasted commands find their servers without it.
        PATH: process.env['PATH'] ?? '',
      };
      for (const { page, line } of commands) {
        // The command npm link put on the PATH is this checkout's launcher.
        const command = line.replace(/(^|\| )berry-mcp /g, `$1${LAUNCHER} `);
        const result = await runProcess('sh', ['-c', command], { cwd: tmp.dir, env });
        assert.equal(result.code, 0, `${page}: ${line}\n${result.stderr}`);
      }
      // What they leave in the default config: the stand-in, saved disabled; what was removed is gone.
      const saved = JSON.parse(readFileSync(join(env.HOME, '.config', 'berry', 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { enabled?: boolean }> };
      assert.deepEqual(Object.keys(saved.mcpServers), ['docs']);
      assert.equal(saved.mcpServers['docs']!.enabled, false);
    } finally {
      tmp.cleanup();
    }
  });
});
