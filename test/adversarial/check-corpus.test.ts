// No false refusal by the check before a run: every script the repository runs (examples/, and
// every script literal of the host, serve, CLI, bindings and adversarial tests) checked against
// real servers under the names those scripts use. None may be refused, save the few that fail on
// purpose (listed below, each with why). A test's template literal is read with each `${…}` as a
// plain identifier: an unknown value, as the script's own variables are.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { MachineHost } from '../../src/bindings/index.js';
import {
  echoServerPath,
  everythingPath,
  faultServerPath,
  filesystemPath,
  memoryPath,
  PROJECT_ROOT,
  tallyServerPath,
  typedServerPath,
} from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

const FUNCTIONS = ['mcp_list', 'mcp_describe', 'mcp_call', 'mcp_read', 'mcp_prompt', 'mcp_search'];
/** Names the tests configure with servers of their own (OAuth, HTTP, slow starts): not configured here. */
const ELSEWHERE = new Set(['docs', 'down', 'large', 'legacy', 'local', 'modern', 'monitor', 'remote', 'slowstart', 'tasks', 'traced', 'x']);
/** Scripts that fail on purpose, by a piece of their text: what they show. */
const ON_PURPOSE: Record<string, string> = {
  "text('never');": 'serve/server.test.ts: the check refusing in the serve face',
  'text("started");': 'cli/run.test.ts: the check refusing in the CLI face, and --no-check',
  'await tools.mcp_nothing({});': 'cli/pack.test.ts: a file for tsc only, never run, whose @ts-expect-error needs an unknown function',
};

/** Every script literal (a string or template containing `tools.mcp_`) of the test files under `dir`. */
function scriptsIn(dir: string, out: [string, string][]): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'cases' && name !== 'fixtures') scriptsIn(path, out);
      continue;
    }
    if (!name.endsWith('.ts') || name.startsWith('check')) continue;
    const text = readFileSync(path, 'utf8');
    if (!text.includes('tools.mcp_')) continue;
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text.includes('tools.mcp_'))
        out.push([relative(PROJECT_ROOT, path), node.text]);
      else if (ts.isTemplateExpression(node) && node.getText(file).includes('tools.mcp_')) {
        out.push([relative(PROJECT_ROOT, path), node.head.text + node.templateSpans.map((span) => `x${span.literal.text}`).join('')]);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
}

describe('adversarial: the check refuses no script the repository runs', function () {
  this.timeout(120_000);
  const t = useTestHost((dir) => ({
    everything: { command: process.execPath, args: [everythingPath] },
    files: { command: process.execPath, args: [filesystemPath, dir] },
    filesystem: { command: process.execPath, args: [filesystemPath, dir] },
    memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } },
    typed: { command: process.execPath, args: [typedServerPath] },
    fault: { command: process.execPath, args: [faultServerPath] },
    echo: { command: process.execPath, args: [echoServerPath] },
    tally: { command: process.execPath, args: [tallyServerPath], env: { FIXTURE_EVENT_LOG: join(dir, 'tally.log') } },
  }));

  it('examples/ and the tests: no mistake, besides those made on purpose', async () => {
    const scripts: [string, string][] = [];
    for (const name of readdirSync(join(PROJECT_ROOT, 'examples')).filter((n) => n.endsWith('.js'))) {
      scripts.push([`examples/${name}`, readFileSync(join(PROJECT_ROOT, 'examples', name), 'utf8')]);
    }
    scriptsIn(join(PROJECT_ROOT, 'test'), scripts);
    assert.ok(scripts.length >= 80, `${scripts.length} scripts`);
    assert.ok(t.host instanceof MachineHost);
    const refused: string[] = [];
    let onPurpose = 0;
    for (const [file, code] of scripts) {
      const { problems } = await t.host.checkScript(code, { functions: FUNCTIONS });
      const real = problems.filter(
        (p) => !(p.code === 'CHECK_UNKNOWN_SERVER' && [...ELSEWHERE].some((name) => p.message.startsWith(`Unknown server "${name}"`))),
      );
      if (real.length === 0) continue;
      if (Object.keys(ON_PURPOSE).some((piece) => code.includes(piece))) onPurpose++;
      else refused.push(`${file}: ${real.map((p) => `${p.line}:${p.column} ${p.code} ${p.message.slice(0, 120)}`).join('; ')}`);
    }
    assert.deepEqual(refused, []);
    assert.equal(onPurpose, Object.keys(ON_PURPOSE).length, 'each script that fails on purpose is still refused');
  });
});
