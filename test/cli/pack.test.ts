// berry-mcp as a published package: `npm pack` of this checkout, installed from the tarball into a
// fresh project outside the clone with no dev dependencies, then used from another directory
// with the clone's node_modules out of reach: the installed bin (`--help`, a `run` against a stdio
// server, `serve` to a real MCP client), `import('berry-mcp')`, and the types of both exports.
//
// The project denies the native scripts as this project does (allowScripts: isolated-vm, ssh2,
// cpu-features, protobufjs) and approves berry-mcp's, under --strict-allow-scripts: so berry-mcp's own
// postinstall must build the isolated-vm this Node uses. On Node 20 that is a 90 s compile:
// BERRY_ISOLATED_VM_BINARY hands it this checkout's binary of the same isolated-vm for the same
// Node (still loaded and checked). BERRY_PACK_COMPILE=1 compiles for real. npm reuses the local
// cache (prefer-offline); the registry is only asked for what the cache lacks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isolatedVmFor } from '../../src/runtime/load-ivm.js';
import { everythingPath, PROJECT_ROOT } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * What a user's shell would have: no npm_* variables from the `npm test` that runs this, no
 * NODE_PATH, and no folder of the clone on PATH (npm put its node_modules/.bin there).
 */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE_PATH') env[key] = value;
  }
  // This test's own Node first (in CI's Node 24 copy it lives under the clone): npm and the bin run on it.
  const rest = (env['PATH'] ?? '').split(':').filter((dir) => dir !== '' && !dir.startsWith(PROJECT_ROOT));
  env['PATH'] = [dirname(process.execPath), ...rest].join(':');
  return { ...env, ...extra };
}

/** Runs a command (stdin: input, or nothing); a non-zero exit names it and shows the ends of its output. */
function exec(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeout?: number; input?: string },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, timeout: options.timeout ?? 60_000, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A command that does not read its stdin may be gone before it is written (EPIPE).
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new assert.AssertionError({
            message: `${command} ${args.join(' ')} in ${options.cwd}: exit ${code ?? signal}\n${stderr.slice(-3000)}\n${stdout.slice(-2000)}`,
          }),
        );
    });
  });
}

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

describe('the packed package, installed outside the clone', function () {
  this.timeout(300_000);
  let tmp: ReturnType<typeof tempDir>;
  let client: Client | undefined;
  const planted = join(PROJECT_ROOT, 'dist', 'src', 'pack-test-stale.js');

  before(() => {
    tmp = tempDir('berry-pack-');
  });
  after(async () => {
    await client?.close().catch(() => {});
    rmSync(planted, { force: true });
    tmp?.cleanup();
  });

  it('installs with no dev dependency and runs its bin, serve, the library and the typings from anywhere', async () => {
    const times: string[] = [];
    const packDir = join(tmp.dir, 'pack');
    const project = join(tmp.dir, 'project');
    const home = join(tmp.dir, 'home');
    const elsewhere = join(tmp.dir, 'elsewhere');
    for (const dir of [packDir, project, home, elsewhere]) mkdirSync(dir, { recursive: true });
    const cache = (await exec('npm', ['config', 'get', 'cache'], { cwd: PROJECT_ROOT, env: cleanEnv({}) })).stdout.trim();
    const npmEnv = cleanEnv({
      HOME: home,
      npm_config_cache: cache,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    });

    // Pack as `npm publish` does (prepack, prepare): build output whose source is gone (a moved file) stays out.
    writeFileSync(planted, 'export const stale = true;\n');
    let started = performance.now();
    const packed = JSON.parse(
      (await exec('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: PROJECT_ROOT, env: npmEnv, timeout: 120_000 })).stdout,
    ) as [{ filename: string; size: number; unpackedSize: number; files: { path: string; mode: number }[] }];
    times.push(`pack ${seconds(started)}`);
    const { filename, size, unpackedSize, files } = packed[0];
    const paths = files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'bin/berry-mcp',
      'dist/src/bin.js',
      'dist/src/cli/launch.cjs',
      'dist/src/cli/command.cjs',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'typings/berry-mcp.d.ts',
      'scripts/build-isolated-vm.mjs',
    ]) {
      assert.ok(paths.includes(needed), `the tarball has ${needed}`);
    }
    const strays = paths.filter(
      (p) => !/^(package\.json|README\.md|bin\/berry-mcp|typings\/|scripts\/build-isolated-vm\.mjs$|dist\/src\/.*\.(js|cjs|d\.ts)$)/.test(p),
    );
    assert.deepEqual(strays, [], 'the tarball holds only the package (no tests, sources, source maps)');
    // The two .cjs files are the bundled command (scripts/bundle-cli.mjs), built of the rest.
    const bundled = ['dist/src/cli/command.cjs', 'dist/src/cli/launch.cjs'];
    const sourceless = paths.filter(
      (p) => p.startsWith('dist/src/') && !bundled.includes(p) && !existsSync(join(PROJECT_ROOT, p.replace(/^dist\//, '').replace(/\.(d\.ts|js)$/, '.ts'))),
    );
    assert.deepEqual(sourceless, [], 'every file of dist/src in the tarball is built from a source of src/');
    assert.deepEqual(paths.filter((p) => p.endsWith('.cjs')).sort(), bundled, 'no other .cjs file');
    assert.ok(!existsSync(planted), 'prepack removed the stale build output');
    assert.equal((files.find((f) => f.path === 'bin/berry-mcp')!.mode & 0o111) !== 0, true, 'the launcher is executable');

    // A user's project: native scripts denied as this project does, berry-mcp's own approved.
    const tarball = join(packDir, filename);
    const policy = { 'isolated-vm': false, ssh2: false, 'cpu-features': false, protobufjs: false, [`file:${tarball}`]: true };
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'berry-user', private: true, type: 'module', allowScripts: policy }));
    const choice = isolatedVmFor(Number(process.versions.node.split('.')[0]));
    const binary = join(PROJECT_ROOT, 'node_modules', choice.packageName, 'out', 'isolated_vm.node');
    const reuse: Record<string, string> = process.env['BERRY_PACK_COMPILE'] !== '1' && existsSync(binary) ? { BERRY_ISOLATED_VM_BINARY: binary } : {};
    started = performance.now();
    const install = await exec('npm', ['install', '--omit=dev', '--strict-allow-scripts', '--foreground-scripts', tarball], {
      cwd: project,
      env: { ...npmEnv, ...reuse },
      timeout: 240_000,
    });
    times.push(`install ${seconds(started)}`);
    const installed = join(project, 'node_modules');
    assert.ok(!existsSync(join(installed, '@modelcontextprotocol', 'sdk')), 'the v1 SDK (a dev dependency) is not installed');
    assert.ok(!existsSync(join(installed, 'mocha')) && !existsSync(join(installed, '@biomejs')), 'no dev dependency is installed');
    assert.doesNotMatch(install.stderr, /install scripts not yet covered/);
    // berry-mcp's postinstall made this Node's isolated-vm load: by the binary handed to it, or by compiling.
    const built = install.stderr.match(/build-isolated-vm: .*/g)?.join('; ');
    if (reuse['BERRY_ISOLATED_VM_BINARY'] !== undefined) assert.match(built ?? '', /not compiling/, install.stderr.slice(-3000));

    // From another directory, through the bin npm linked, the clone nowhere on the way.
    const bin = join(installed, '.bin');
    const env = cleanEnv({ HOME: home });
    env['PATH'] = `${bin}:${env['PATH']}`;
    // server-everything by its absolute path: a program of its own, as a user's server would be.
    const config = join(elsewhere, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingPath, 'stdio'] } } }));
    assert.equal((await exec('sh', ['-c', 'command -v berry-mcp'], { cwd: elsewhere, env })).stdout.trim(), join(bin, 'berry-mcp'));

    started = performance.now();
    const help = await exec('berry-mcp', ['--help'], { cwd: elsewhere, env });
    times.push(`--help ${seconds(started)}`);
    assert.match(help.stdout, /berry-mcp run/);

    const script = 'const r = await tools.mcp_call({ server: "everything", tool: "get-sum", arguments: { a: 2, b: 40 } }); text(r.content[0].text);';
    started = performance.now();
    const run = await exec('berry-mcp', ['run', '-', '--config', config], { cwd: elsewhere, env, input: script });
    times.push(`run ${seconds(started)}`);
    assert.match(run.stdout, /\b42\b/);

    const transport = new StdioClientTransport({ command: 'berry-mcp', args: ['serve', '--config', config], cwd: elsewhere, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    client = new Client({ name: 'pack-test', version: '1.0.0' });
    started = performance.now();
    await client.connect(transport).catch((error: unknown) => assert.fail(`berry-mcp serve did not connect: ${String(error)}\n${stderr}`));
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['run'],
    );
    const served = (await client.callTool({ name: 'run', arguments: { code: `${script} return 6 * 7;` } })) as CallToolResult;
    times.push(`serve ${seconds(started)}`);
    assert.equal(served.isError, undefined, `${JSON.stringify(served)}\n${stderr}`);
    assert.equal(served.structuredContent?.['result'], 42);
    await client.close();
    client = undefined;

    // Without its binary, `run` names the command that builds it again: berry-mcp's postinstall
    // (`npm rebuild isolated-vm-5` would do nothing where isolated-vm's scripts are denied).
    if (reuse['BERRY_ISOLATED_VM_BINARY'] !== undefined) {
      rmSync(join(installed, choice.packageName, 'out'), { recursive: true, force: true });
      const broken = await exec('berry-mcp', ['run', '-', '--config', config], { cwd: elsewhere, env, input: script }).catch((error: Error) => error);
      assert.ok(broken instanceof Error && /SCRIPT_SETUP_FAILED/.test(broken.message) && /`npm rebuild berry-mcp`/.test(broken.message), String(broken));
      await exec('npm', ['rebuild', 'berry-mcp', '--foreground-scripts'], { cwd: project, env: { ...npmEnv, ...reuse } });
      assert.match((await exec('berry-mcp', ['run', '-', '--config', config], { cwd: elsewhere, env, input: script })).stdout, /\b42\b/);
    }

    // The library, from a module of the user's project, run from elsewhere.
    writeFileSync(
      join(project, 'use.js'),
      [
        "import { createHost } from 'berry-mcp';",
        "import { createRequire } from 'node:module';",
        "const { version } = createRequire(import.meta.url)('berry-mcp/package.json');",
        'const host = createHost({ cwd: process.cwd(), configPath: process.argv[2] });',
        `try { const run = await host.run(${JSON.stringify(`${script} return 6 * 7;`)}); console.log(JSON.stringify({ version, result: run.result, outputs: run.outputs })); }`,
        'finally { await host.close(); }',
      ].join('\n'),
    );
    const used = JSON.parse((await exec(process.execPath, ['--no-node-snapshot', join(project, 'use.js'), config], { cwd: elsewhere, env })).stdout) as {
      version: string;
      result: unknown;
    };
    assert.equal(used.version, JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version);
    assert.equal(used.result, 42);

    // Both `types` exports, checked by the clone's TypeScript: the library's and a script's globals.
    writeFileSync(
      join(project, 'check.ts'),
      [
        "import { createHost, type Host, type RunRecord } from 'berry-mcp';",
        "const host: Host = createHost({ cwd: '/', configPath: 'mcp.json' });",
        "const run: RunRecord = await host.run('return 1');",
        'export const ok: boolean = run.ok;',
        '// @ts-expect-error: cwd is a string (fails as unused if the types did not resolve)',
        'createHost({ cwd: 1 });',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'script.js'),
      [
        '/// <reference types="berry-mcp/script" />',
        'const listed = await tools.mcp_list({});',
        'text(String(listed.servers.length));',
        '// @ts-expect-error: no such function (fails as unused if berry-mcp/script did not resolve)',
        'await tools.mcp_nothing({});',
      ].join('\n'),
    );
    const compilerOptions = {
      target: 'es2022',
      module: 'preserve',
      moduleDetection: 'force',
      lib: ['es2023'],
      types: [],
      allowJs: true,
      checkJs: true,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts', 'script.js'] }));
    await exec(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(project, 'tsconfig.json')], {
      cwd: elsewhere,
      env,
    });

    console.log(`      tarball ${(size / 1024).toFixed(0)} kB (${(unpackedSize / 1024).toFixed(0)} kB unpacked, ${files.length} files); ${times.join(', ')}`);
    if (built !== undefined) console.log(`      ${built}`);
  });
});
