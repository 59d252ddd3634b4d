// Compile tests: sample scripts (test/typings/cases) and examples/typed-script.js type-checked
// by the real tsc, once against the static script API alone and once with the server types
// generated from the real reference servers and the fixture tool list. Each script's
// `// @expect` markers say which errors it must get; any other error fails.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateTypings } from '../../src/bindings/typings/index.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { DOWN_SERVER_ERROR, fixtureTools, WEIRD_SERVER_NAME, weirdServerTools } from './fixtures/fixture-tools.js';
import { learnedObserved, learnedTools } from './fixtures/observed-tools.js';
import { listReferenceServers } from './support/reference-servers.js';
import { CASES_DIR, copyScripts, mismatches, runTsc, type Diagnostic } from './support/tsc.js';

/** The flags README gives for checking a script without a tsconfig. */
const SCRIPT_FLAGS = [
  '--noEmit',
  '--allowJs',
  '--checkJs',
  '--strict',
  '--target',
  'ES2022',
  '--module',
  'preserve',
  '--moduleDetection',
  'force',
  '--lib',
  'ES2023',
];

/** The tsconfig README gives for a folder of scripts. */
const SCRIPTS_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'preserve',
    moduleDetection: 'force',
    lib: ['ES2023'],
    types: ['berry-mcp/script'],
    allowJs: true,
    checkJs: true,
    strict: true,
    noEmit: true,
  },
};

const GENERATED = 'berry-mcp.servers.d.ts';
const EXAMPLE = 'typed-script.js';
const scriptsIn = (dir: string): string[] =>
  fs
    .readdirSync(path.join(CASES_DIR, dir))
    .filter((name) => /\.(ts|js)$/.test(name))
    .sort();

describe('typings: scripts type-checked by tsc', function () {
  this.timeout(60_000);

  let work: string;
  let generated: string;
  const diagnostics = new Map<string, Diagnostic[]>();

  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'berry-typings-tsc-'));
    // As if berry-mcp were installed: `berry-mcp/script` resolves through package.json exports.
    fs.mkdirSync(path.join(work, 'node_modules'));
    fs.symlinkSync(PROJECT_ROOT, path.join(work, 'node_modules', 'berry-mcp'), 'dir');

    const servers = await listReferenceServers();
    try {
      generated = await generateTypings([
        ...[...servers.tools].map(([server, tools]) => ({ server, tools, prompts: servers.prompts.get(server) ?? [] })),
        { server: 'fixture', tools: fixtureTools },
        { server: 'learned', tools: learnedTools, observed: learnedObserved },
        { server: WEIRD_SERVER_NAME, tools: weirdServerTools },
        { server: 'broken', error: DOWN_SERVER_ERROR },
      ]);
    } finally {
      await servers.close();
    }

    const staticDir = path.join(work, 'static');
    const staticScripts = copyScripts(path.join(CASES_DIR, 'static'), staticDir);
    const serversDir = path.join(work, 'servers');
    copyScripts(path.join(CASES_DIR, 'servers'), serversDir);
    fs.copyFileSync(path.join(PROJECT_ROOT, 'examples', EXAMPLE), path.join(serversDir, EXAMPLE));
    fs.writeFileSync(path.join(serversDir, GENERATED), generated);
    fs.writeFileSync(path.join(serversDir, 'tsconfig.json'), JSON.stringify({ ...SCRIPTS_TSCONFIG, include: ['*'] }, null, 2));

    // Two tsc runs in parallel: each costs a second or two of start-up.
    const [staticResult, serversResult] = await Promise.all([runTsc(staticDir, [...SCRIPT_FLAGS, ...staticScripts]), runTsc(serversDir, ['-p', '.'])]);
    diagnostics.set('static', staticResult);
    diagnostics.set('servers', serversResult);
  });

  after(() => {
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
  });

  const diagnosticsOf = (run: string, file: string): Diagnostic[] => (diagnostics.get(run) ?? []).filter((d) => d.file === file);

  describe('the static API alone (reference line and command-line flags, no tsconfig)', () => {
    for (const name of scriptsIn('static')) {
      it(`${name} gets exactly the errors it expects`, () => {
        const source = fs.readFileSync(path.join(CASES_DIR, 'static', name), 'utf8');
        assert.deepEqual(mismatches(source, diagnosticsOf('static', name)), []);
      });
    }

    it('reports nothing outside the scripts (typings/berry-mcp.d.ts itself is clean)', () => {
      const scripts = new Set(scriptsIn('static'));
      assert.deepEqual(
        (diagnostics.get('static') ?? []).filter((d) => !scripts.has(d.file)),
        [],
      );
    });
  });

  describe('with generated server types (tsconfig types: ["berry-mcp/script"])', () => {
    for (const name of scriptsIn('servers')) {
      it(`${name} gets exactly the errors it expects`, () => {
        const source = fs.readFileSync(path.join(CASES_DIR, 'servers', name), 'utf8');
        assert.deepEqual(mismatches(source, diagnosticsOf('servers', name)), []);
      });
    }

    it(`examples/${EXAMPLE} type-checks against the demo servers' types`, () => {
      assert.deepEqual(diagnosticsOf('servers', EXAMPLE), []);
    });

    it('the generated file itself compiles cleanly, and nothing else is reported', () => {
      const known = new Set([...scriptsIn('servers'), EXAMPLE]);
      assert.deepEqual(
        (diagnostics.get('servers') ?? []).filter((d) => !known.has(d.file)),
        [],
      );
    });

    it('types every tool of the reference servers, and leaves the down server out with a warning', () => {
      for (const tool of ['echo', 'get-sum', 'get-structured-content', 'list_directory', 'create_entities', 'read_graph']) {
        assert.match(generated, new RegExp(`^      "${tool}": \\{$`, 'm'));
      }
      assert.match(generated, /^\/\/ Warning: server "broken" is left out \(its tools are unknown\): MCP_CONNECT_FAILED/m);
      assert.doesNotMatch(generated, /^    "broken": \{/m);
    });

    it('marks observed result types as observed', () => {
      assert.match(generated, /^        \/\*\* observed over 3 calls \*\/\n        structured: BerryMcp\.Generated\.Learned\.ReadGraph\.Observed\.Returns;$/m);
      assert.match(
        generated,
        /^        \/\*\* observed over 1 call: content\[0\]\.text is JSON of type BerryMcp\.Generated\.Learned\.SearchText\.Observed\.Returns \*\/$/m,
      );
      assert.match(generated, /\/\*\* observed over 1 call: the type of the JSON in `content\[0\]\.text`, learned from results/);
      assert.doesNotMatch(generated, /Learned\.Declared\.Observed/);
    });
  });
});
