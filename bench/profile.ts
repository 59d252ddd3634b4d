/**
 * A small driver for `node --cpu-prof`: runs one workload in a child process that writes a CPU
 * profile, then prints where the time went (self time by function and by file).
 *
 *   node --no-node-snapshot dist/bench/profile.js call|raw|script|reread|list-many [count]
 *
 * call: host.call(echo) on server-everything; raw: the SDK's Client.callTool; script: one host.run
 * doing tools.mcp_call(echo) in a loop; reread: host.readConfig() on the 20-server file;
 * list-many: a warm list of section 22's 100 servers, saved catalogs on (as the CLI and serve).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../src/index.js';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { twentyServers } from './config.js';
import { manyServers, SERVERS } from './many-servers.js';
import { ECHO, everythingEntry, everythingPath, NODE, rawEcho, rawStdio, tempDir, writeConfig } from './fixtures.js';

const WORKLOADS = ['call', 'raw', 'script', 'reread', 'list-many'] as const;
type Workload = (typeof WORKLOADS)[number];

interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

async function workload(kind: Workload, count: number): Promise<void> {
  const { dir, remove } = tempDir('profile');
  const servers = kind === 'reread' ? twentyServers() : kind === 'list-many' ? manyServers(SERVERS) : { everything: everythingEntry() };
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, servers), ...(kind === 'list-many' ? { savedCatalogs: { dir: `${dir}/catalogs` } } : {}) });
  try {
    // A config file younger than 2 s is read whole on every operation (see machine/unchanged-file.ts);
    // a long-lived host's is older: profile that steady state.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    if (kind === 'raw') {
      const raw = await rawStdio(NODE, [everythingPath]);
      for (let i = 0; i < count; i++) await rawEcho(raw);
      await raw.close();
    } else if (kind === 'call') {
      for (let i = 0; i < count; i++) await host.call(ECHO);
    } else if (kind === 'script') {
      const record = await host.run(`for (let i = 0; i < ${count}; i++) await tools.mcp_call(${JSON.stringify(ECHO)});`, {
        timeoutMs: 600_000,
      });
      if (!record.ok) throw new Error(JSON.stringify(record.error));
    } else if (kind === 'list-many') {
      await host.list({});
      for (let i = 0; i < count; i++) await host.list({});
    } else {
      for (let i = 0; i < count; i++) await host.readConfig();
    }
  } finally {
    await host.close();
    remove();
  }
}

const IDLE = new Set(['(idle)', '(program)']);

/** Self time of the busy samples (idle left out), by function and by file. */
function summarize(profileFile: string, count: number, top: number): string {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as { nodes: ProfileNode[]; startTime: number; endTime: number };
  const allHits = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const usPerHit = (profile.endTime - profile.startTime) / allHits;
  const busy = profile.nodes.filter((n) => (n.hitCount ?? 0) > 0 && !IDLE.has(n.callFrame.functionName));
  const totalHits = busy.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of busy) {
    const hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = shortFile(url);
    const key = `${functionName || '(anonymous)'}  ${file}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
    byFile.set(file, (byFile.get(file) ?? 0) + hits);
  }
  const table = (map: Map<string, number>): string =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, hits]) => `  ${((hits / totalHits) * 100).toFixed(1).padStart(5)} %  ${((hits * usPerHit) / count).toFixed(1).padStart(6)} µs/op  ${key}`)
      .join('\n');
  // Inclusive time of the project's own functions (dist/src): what each costs with its callees.
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n);
  const inclusive = new Map<string, number>();
  for (const node of busy) {
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = node; at; at = parent.get(at.id)) {
      const { functionName, url, lineNumber } = at.callFrame;
      if (!url.includes('/dist/src/')) continue;
      const key = `${functionName || '(anonymous)'}  ${shortFile(url)}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + (node.hitCount ?? 0));
    }
  }
  const busyUs = totalHits * usPerHit;
  return (
    `busy (not idle) ${(busyUs / 1000).toFixed(0)} ms of ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms, ` +
    `${(busyUs / count).toFixed(1)} µs per operation (module loading and setup included)\n\n` +
    `share of busy time, by function (self, top ${top}):\n${table(byFunction)}\n\nby file (self):\n${table(byFile)}\n\n` +
    `berry-mcp's own functions (inclusive: with everything they call):\n${table(inclusive)}`
  );
}

function shortFile(url: string): string {
  if (!url) return '(native/gc/idle)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  return path.startsWith(PROJECT_ROOT) ? relative(PROJECT_ROOT, path) : path;
}

async function main(): Promise<void> {
  const [kind, countArg, child] = process.argv.slice(2);
  if (!WORKLOADS.includes(kind as Workload)) {
    process.stderr.write(`usage: profile.js ${WORKLOADS.join('|')} [count]\n`);
    process.exit(2);
  }
  const count = Number(countArg ?? (kind === 'reread' ? 200_000 : 20_000));
  if (child === '--child') {
    await workload(kind as Workload, count);
    return;
  }
  const { dir, remove } = tempDir('cpuprof');
  try {
    const started = performance.now();
    const result = spawnSync(
      NODE,
      ['--no-node-snapshot', '--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${dir}`, fileURLToPath(import.meta.url), kind!, String(count), '--child'],
      { stdio: 'inherit' },
    );
    if (result.status !== 0) throw new Error(`workload exited ${result.status}`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no .cpuprofile written');
    process.stdout.write(`${kind} × ${count}: ${((performance.now() - started) / 1000).toFixed(1)} s wall\n${summarize(join(dir, file), count, 25)}\n`);
  } finally {
    remove();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
