import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { LAUNCHER } from '../support/berry-cli.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

// The pages whose commands must work as pasted from the repo root (docs/ssh.md needs a real host).
const PAGES = ['README.md', 'docs/cli.md', 'docs/scripts.md', 'docs/typings.md'];

/** Every `npx berry-mcp …` line of the pages' sh blocks, trailing comments dropped. */
function shownCommands(): { page: string; line: string }[] {
  const found: { page: string; line: string }[] = [];
  for (const page of PAGES) {
    const text = readFileSync(join(PROJECT_ROOT, page), 'utf8');
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      for (const raw of block[1]!.split('\n')) {
        const line = raw.replace(/\s+#\s.*$/, '').trim();
        // A bare `berry-mcp` is not on PATH after npm install: it would not work as pasted.
        if (/(^|\| )berry-mcp /.test(line)) throw new Error(`${page} shows a bare berry-mcp: ${line}`);
        if (/(^|\| )npx berry-mcp /.test(line)) found.push({ page, line });
      }
    }
  }
  return found;
}

describe('the commands the docs show', function () {
  this.timeout(120_000);

  it('each works as pasted from the repo root after npm install', async () => {
    const commands = shownCommands();
    assert.ok(commands.length >= 8, `found ${commands.length} commands`);
    const tmp = tempDir();
    try {
      // The repo root as seen by the commands, but files they write land in a temp dir.
      symlinkSync(join(PROJECT_ROOT, 'examples'), join(tmp.dir, 'examples'));
      mkdirSync(join(tmp.dir, 'home', '.cache'), { recursive: true });
      const env = {
        HOME: join(tmp.dir, 'home'),
        // What npx gives the command: the project's node_modules/.bin first on PATH.
        PATH: `${join(PROJECT_ROOT, 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`,
      };
      for (const { page, line } of commands) {
        const command = line.replace(/npx berry-mcp /g, `${LAUNCHER} `);
        const result = await runProcess('sh', ['-c', command], { cwd: tmp.dir, env });
        assert.equal(result.code, 0, `${page}: ${line}\n${result.stderr}`);
      }
    } finally {
      tmp.cleanup();
    }
  });
});
