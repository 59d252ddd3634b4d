// The README's set-up on a fresh clone, as a new user runs it: clone, the README's first command
// (install, npm link, the demo), then an agent config of the README started from another
// directory, a real MCP client connected to it over stdio and a `run` call.
//
// npm's global prefix is a temp dir (npm_config_prefix), so the machine's global bin is untouched;
// npm reuses the local cache (prefer-offline). On Node 20 the install would compile isolated-vm 5
// for 90 s or more: BERRY_ISOLATED_VM_BINARY hands the build script this checkout's binary of the
// same isolated-vm for the same Node instead (it is still loaded and checked). Set
// BERRY_FRESH_CLONE_COMPILE=1 to compile for real.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';

const exec = promisify(execFile);

/** The README's set-up: the first line of its first sh block, its comment dropped. */
function setUpCommand(readme: string): string {
  const block = /```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README starts with an sh block');
  return block[1]!
    .split('\n')[0]!
    .replace(/\s+#\s.*$/, '')
    .trim();
}

/** The README's Cursor / VS Code config: the `berry` entry of its first `mcpServers` json block. */
function agentConfig(readme: string): { command: string; args: string[] } {
  for (const block of readme.matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(block[1]!) as { mcpServers?: Record<string, { command: string; args: string[] }> };
    const berry = parsed.mcpServers?.['berry'];
    if (berry) return berry;
  }
  assert.fail('the README has an mcpServers config for berry');
}

/** What a user's shell would have: no npm_* variables from the `npm test` that runs this. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, ...extra };
}

describe('the README on a fresh clone', function () {
  this.timeout(300_000);
  let tmp: ReturnType<typeof tempDir>;
  let client: Client | undefined;

  before(function () {
    // .ci/run's copies for other Nodes are plain file trees; its Node 20 stage runs in the clone.
    if (!existsSync(join(PROJECT_ROOT, '.git'))) this.skip();
    tmp = tempDir('berry-fresh-clone-');
  });
  after(async () => {
    await client?.close().catch(() => {});
    tmp?.cleanup();
  });

  it('sets up a berry-mcp on the PATH that an agent config starts from anywhere, and a run answers', async () => {
    const started = performance.now();
    const clone = join(tmp.dir, 'clone');
    const prefix = join(tmp.dir, 'npm-global');
    const home = join(tmp.dir, 'home');
    const elsewhere = join(tmp.dir, 'elsewhere');
    for (const dir of [prefix, home, elsewhere]) mkdirSync(dir, { recursive: true });
    const cache = (await exec('npm', ['config', 'get', 'cache'], { env: cleanEnv({}) })).stdout.trim();
    const binary = join(PROJECT_ROOT, 'node_modules', 'isolated-vm-5', 'out', 'isolated_vm.node');
    const env = cleanEnv({
      HOME: home,
      npm_config_prefix: prefix,
      npm_config_cache: cache,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`,
      ...(process.env['BERRY_FRESH_CLONE_COMPILE'] !== '1' && existsSync(binary) ? { BERRY_ISOLATED_VM_BINARY: binary } : {}),
    });

    await exec('git', ['clone', '-q', PROJECT_ROOT, clone]);
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const setUp = setUpCommand(readme);
    assert.match(setUp, /npm link|npm install -g/, `the set-up puts berry-mcp on the PATH: ${setUp}`);
    const setUpStarted = performance.now();
    try {
      await exec('sh', ['-c', setUp], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      assert.fail(`the README's set-up failed in a fresh clone: ${setUp}\n${String(stderr ?? '').slice(-3000)}\n${String(stdout ?? '').slice(-2000)}`);
    }
    const setUpMs = performance.now() - setUpStarted;

    // The agent's side: another directory, the README's config (its path made this test's home).
    const config = agentConfig(readme);
    const args = config.args.map((arg) => arg.replace('/home/me', home));
    const configPath = args[args.indexOf('--config') + 1]!;
    mkdirSync(join(configPath, '..'), { recursive: true });
    const everything = join(clone, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { everything: { command: 'node', args: [everything, 'stdio'] } } }));
    const which = await exec('sh', ['-c', `command -v ${config.command}`], { cwd: elsewhere, env }).catch(() => undefined);
    assert.equal(which?.stdout.trim(), join(prefix, 'bin', config.command), `${config.command} is on the PATH in the npm prefix`);

    const transport = new StdioClientTransport({ command: config.command, args, cwd: elsewhere, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    client = new Client({ name: 'fresh-clone-test', version: '1.0.0' });
    const connectStarted = performance.now();
    await client.connect(transport).catch((error: unknown) => assert.fail(`${config.command} ${args.join(' ')} did not connect: ${String(error)}\n${stderr}`));
    const connectMs = performance.now() - connectStarted;
    // Claude Code gives a server 30 s to connect.
    assert.ok(connectMs < 30_000, `connected in ${connectMs.toFixed(0)} ms`);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['run'],
    );
    const result = (await client.callTool({
      name: 'run',
      arguments: { code: 'const r = await tools.mcp_call({ server: "everything", tool: "get-sum", arguments: { a: 2, b: 40 } }); return r.content[0].text;' },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.match(String(result.structuredContent?.['result']), /\b42\b/);
    console.log(
      `      set-up ${(setUpMs / 1000).toFixed(1)} s, connect ${connectMs.toFixed(0)} ms, whole test ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
