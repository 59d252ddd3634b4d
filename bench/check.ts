/**
 * Section 18: the check before a run (issue 33). A long-lived host runs a 40-line script that
 * names three servers (everything, files, memory), in alternating rounds: checked (the default),
 * unchecked (`check: 'off'`), and the check alone (`checkScript`, its type warnings included).
 * The target: the warm check at most 20 % of the run's own duration, or 30 ms p50, whichever is
 * larger. Then the one-shot CLI, where the check is cold (TypeScript loaded, catalogs read, no
 * type warnings): `berry-mcp run` of the same script with and without `--no-check`, and
 * `run text(1)` both ways (a script that names no `tools.*` loads no compiler).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MachineHost } from '../src/bindings/index.js';
import { createHost } from '../src/index.js';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { everythingEntry, NODE, tempDir, writeConfig } from './fixtures.js';
import { row, value, type Row } from './rows.js';
import { alternate, median, pairedDifferences, pairedRatios, timeOnce } from './stats.js';
import { timeProcess } from './startup.js';

const SECTION = '19 check before a run';
const ROUNDS = 20;
const CLI_ROUNDS = 5;
const BIN = join(PROJECT_ROOT, 'bin', 'berry-mcp');
const FUNCTIONS = ['mcp_list', 'mcp_describe', 'mcp_call', 'mcp_read', 'mcp_prompt'];

/** 40 lines naming three servers, as a model writes them. */
export const SCRIPT = `const started = Date.now();
const [echo, sum, weather] = await Promise.all([
  tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'check bench' } }),
  tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 19, b: 23 } }),
  tools.mcp_call({ server: 'everything', tool: 'get-structured-content', arguments: { location: 'Chicago' } }),
]);
text(echo.content[0].text);
text(sum.content[0].text);
if (weather.structuredContent) {
  const { temperature, conditions } = weather.structuredContent;
  text(\`Chicago: \${temperature} °C, \${conditions}\`);
}

await tools.mcp_call({ server: 'files', tool: 'write_file', arguments: { path: 'notes.txt', content: \`run at \${started}\\n\` } });
const listing = await tools.mcp_call({ server: 'files', tool: 'list_directory', arguments: { path: '.' } });
const entries = listing.content[0].text.split('\\n').filter((line) => line.startsWith('[FILE]'));
const read = await tools.mcp_call({ server: 'files', tool: 'read_text_file', arguments: { path: 'notes.txt', head: 1 } });
text(\`\${entries.length} files; notes.txt says \${read.content[0].text.trim()}\`);

const names = ['alpha', 'beta', 'gamma'];
await tools.mcp_call({
  server: 'memory',
  tool: 'create_entities',
  arguments: { entities: names.map((name) => ({ name, entityType: 'bench', observations: [\`seen at \${started}\`] })) },
});
await tools.mcp_call({
  server: 'memory',
  tool: 'create_relations',
  arguments: { relations: [{ from: 'alpha', to: 'beta', relationType: 'precedes' }] },
});
const found = await tools.mcp_call({ server: 'memory', tool: 'search_nodes', arguments: { query: 'alpha' } });
const graph = found.structuredContent?.entities ?? [];
for (const entity of graph) text(\`\${entity.name} (\${entity.entityType})\`);

const described = await tools.mcp_describe({ server: 'everything', tool: 'get-sum' });
console.log(\`get-sum takes \${described.arguments}\`);
await tools.mcp_call({ server: 'memory', tool: 'delete_entities', arguments: { entityNames: names } });
return { files: entries.length, entities: graph.length, ms: Date.now() - started };`;

export default async function checkBench(): Promise<Row[]> {
  const { dir, remove } = tempDir('check');
  const modules = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol');
  const config = writeConfig(dir, {
    everything: everythingEntry(),
    files: { command: NODE, args: [join(modules, 'server-filesystem', 'dist', 'index.js'), dir] },
    memory: { command: NODE, args: [join(modules, 'server-memory', 'dist', 'index.js')], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } },
  });
  const host = createHost({ cwd: dir, configPath: config });
  try {
    if (!(host instanceof MachineHost)) throw new Error('createHost made no MachineHost');
    // The second checked run warms the type checker in the background: wait for it.
    for (let i = 0; i < 3; i++) await host.run(SCRIPT);
    await sleep(3000);
    const warm = await alternate(
      { rounds: ROUNDS, warmupRounds: 2 },
      {
        checked: () => timeOnce(() => expectOk(host.run(SCRIPT))),
        unchecked: () => timeOnce(() => expectOk(host.run(SCRIPT, { check: 'off' }))),
        check: () =>
          timeOnce(async () => {
            const result = await host.checkScript(SCRIPT, { functions: FUNCTIONS });
            if (result.problems.length > 0) throw new Error(JSON.stringify(result.problems));
            await result.typeWarnings;
          }),
        callsOnly: () => timeOnce(() => host.checkScript(SCRIPT, { functions: FUNCTIONS, typeBudgetMs: 0 })),
        unbounded: () => timeOnce(async () => (await host.checkScript(SCRIPT, { functions: FUNCTIONS, typeBudgetMs: 60_000 })).typeWarnings),
      },
    );
    const limit = Math.max(30, 0.2 * median(warm.unchecked.samples));
    const script = join(dir, 'script.js');
    writeFileSync(script, SCRIPT);
    const cli = await alternate(
      { rounds: CLI_ROUNDS, warmupRounds: 1 },
      {
        checked: timeProcess(BIN, ['run', script, '--config', config], '"files"', { cwd: dir }),
        unchecked: timeProcess(BIN, ['run', script, '--no-check', '--config', config], '"files"', { cwd: dir }),
        text: timeProcess(BIN, ['run', '-', '--config', config], '1', { cwd: dir, input: 'text(1)' }),
        textUnchecked: timeProcess(BIN, ['run', '-', '--no-check', '--config', config], '1', { cwd: dir, input: 'text(1)' }),
      },
    );
    return [
      row(SECTION, 'warm run of the 40-line script, unchecked', 'ms', warm.unchecked.samples),
      row(SECTION, 'the same, checked (the default)', 'ms', warm.checked.samples),
      row(SECTION, 'warm check alone (calls + type warnings)', 'ms', warm.check.samples, {
        target: { max: limit, label: `≤ ${limit.toFixed(1)} ms (max of 30 ms, 20 % of the run)` },
      }),
      row(SECTION, 'warm check of the calls alone (no type warnings)', 'ms', warm.callsOnly.samples),
      row(SECTION, 'warm check with the type warnings unbounded (their whole cost)', 'ms', warm.unbounded.samples),
      row(
        SECTION,
        'warm check / unchecked run',
        '%',
        pairedRatios(warm.check.perRound, warm.unchecked.perRound).map((x) => x * 100),
      ),
      row(SECTION, 'checked run − unchecked run', 'ms (diff)', pairedDifferences(warm.checked.perRound, warm.unchecked.perRound)),
      row(SECTION, 'one-shot `berry-mcp run` of the script, --no-check', 'ms', cli.unchecked.samples),
      row(SECTION, 'one-shot `berry-mcp run` of the script, checked (cold check)', 'ms', cli.checked.samples),
      row(SECTION, 'cold check in the one-shot CLI (checked − --no-check)', 'ms (diff)', pairedDifferences(cli.checked.perRound, cli.unchecked.perRound)),
      row(
        SECTION,
        'run text(1), checked (no tools: no compiler loaded) − --no-check',
        'ms (diff)',
        pairedDifferences(cli.text.perRound, cli.textUnchecked.perRound),
      ),
      value(SECTION, 'run text(1), checked', 'ms', median(cli.text.samples)),
    ];
  } finally {
    await host.close();
    remove();
  }
}

async function expectOk(running: Promise<{ ok: boolean; error?: unknown }>): Promise<void> {
  const record = await running;
  if (!record.ok) throw new Error(`the bench script failed: ${JSON.stringify(record.error)}`);
}
