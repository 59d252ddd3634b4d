import assert from 'node:assert/strict';
import { createHost, type Host } from '../../src/host.js';
import { DESCRIPTION_MAX, describeRun, runDescription, type DescriptionLimits } from '../../src/serve/description/description.js';
import { SERVE_OUTPUT_LIMIT_BYTES } from '../../src/serve/output-budget.js';
import { run, serveStdio, texts, type StdioServe } from '../support/berry-serve.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, memoryPath, typedServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const LIMITS: DescriptionLimits = { defaultTimeoutSeconds: 300, maxTimeoutSeconds: 300, memoryLimitMb: 128, outputLimitBytes: SERVE_OUTPUT_LIMIT_BYTES };

// Four real servers; entries beyond four repeat them under other names (twins share a connection).
const KINDS = [
  ['everything', { command: process.execPath, args: [everythingPath] }],
  ['memory', { command: process.execPath, args: [memoryPath] }],
  ['typed', { command: process.execPath, args: [typedServerPath] }],
  ['many', faultEntry(['--tools=60'])],
] as const;

/** `count` entries named like `everything-07`, cycling through KINDS. */
function servers(count: number): Record<string, unknown> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => {
      const [kind, entry] = KINDS[i % KINDS.length]!;
      return [count === 1 ? kind : `${kind}-${String(i + 1).padStart(2, '0')}`, entry];
    }),
  );
}

interface Line {
  readonly name: string;
  readonly count: number;
  readonly shown: readonly string[];
  readonly notShown: number;
}

/** The server lines of a description: `- name (N tools): a, b, … (K not shown)`. */
function serverLines(description: string): Line[] {
  const section = description
    .slice(description.indexOf('\nServers (') + 1)
    .split('\n')
    .slice(1);
  return section.map((line) => {
    const match = /^- (\S+) \((\d+)\)(?:: (.*?))?(?:, … \((\d+) not shown\))?$/.exec(line);
    assert.ok(match, `a server line: ${JSON.stringify(line)}`);
    return { name: match[1]!, count: Number(match[2]), shown: match[3] ? match[3].split(', ') : [], notShown: Number(match[4] ?? 0) };
  });
}

describe('serve: the run description', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;
  // Every tool name of each kind, as the servers list them.
  const toolsOf = new Map<string, string[]>();

  before(async () => {
    tmp = tempDir('berry-description-');
    const configPath = writeConfig(tmp.dir, servers(KINDS.length));
    host = createHost({ cwd: tmp.dir, configPath });
    const listed = await host.list({});
    for (const status of listed.servers) {
      assert.equal(status.status, 'connected', JSON.stringify(status));
      if (status.status === 'connected')
        toolsOf.set(
          status.name.replace(/-\d+$/, ''),
          status.tools.map((t) => t.name),
        );
    }
  });
  after(async () => {
    console.log(`      description lengths by server count: ${JSON.stringify(lengths)}`);
    await host?.close();
    tmp?.cleanup();
  });

  const lengths: Record<number, number> = {};
  for (const count of [1, 3, 10, 30]) {
    it(`fits ${DESCRIPTION_MAX} characters with ${count} real servers, each with its name and tool count`, async () => {
      const configPath = writeConfig(tmp.dir, servers(count));
      const one = createHost({ cwd: tmp.dir, configPath });
      try {
        const description = await describeRun(one, await one.readConfig(), LIMITS);
        lengths[count] = description.length;
        assert.ok(description.length <= DESCRIPTION_MAX, `${description.length} characters:\n${description}`);
        const lines = serverLines(description);
        assert.deepEqual(
          lines.map((l) => l.name),
          Object.keys(servers(count)),
        );
        for (const line of lines) {
          const all = toolsOf.get(line.name.replace(/-\d+$/, ''))!;
          assert.equal(line.count, all.length, `${line.name}'s tool count`);
          // Whole names, in the server's order; a cut list counts what it leaves out.
          assert.deepEqual(line.shown, all.slice(0, line.shown.length), `${line.name} shows whole names`);
          assert.equal(line.notShown, line.shown.length === 0 ? 0 : all.length - line.shown.length, `${line.name} counts what is not shown`);
        }
        // Fair: no server shows two names more than another that still had names to show, unless the next name did not fit.
        const cut = lines.filter((l) => l.shown.length < l.count);
        if (cut.length > 1) {
          const fewest = Math.min(...cut.map((l) => l.shown.length));
          for (const line of lines) assert.ok(line.shown.length <= fewest + 8, `${line.name} shows ${line.shown.length}, another cut one ${fewest}`);
        }
        if (count <= 3)
          assert.ok(
            lines.every((l) => l.shown.length > 0),
            'with few servers every one shows tool names',
          );
      } finally {
        await one.close();
      }
    });
  }

  it('teaches with a worked example, says what the sandbox lacks and what lasts, and gives the budget in characters and tokens', () => {
    const text = runDescription([], LIMITS);
    assert.match(text, /await Promise\.all\(.*tools\.mcp_call\(/);
    assert.match(text, /\nreturn /);
    assert.match(text, /No import\/require, fetch, file system or network/);
    assert.match(text, /JavaScript or TypeScript/);
    assert.doesNotMatch(text, /not TypeScript/);
    assert.match(text, /tools\.mcp_describe\(\{ server \}\) → \{ instructions\?, tools, resources, resourceTemplates, prompts \}/);
    assert.match(text, /servers keep their state too \(files, memory graph\)/);
    // Named whether or not every tool name fits below.
    assert.match(text, /tool names as room allows; mcp_search finds any tool\n/);
    assert.match(text, /output 32,768 bytes \(≈ characters; about 8,000 tokens\)/);
    assert.match(text, /\(none configured: add servers to mcp\.json\)$/);
  });

  it('stays within the cut with 200 servers with long names: the last ones are counted, not lost silently', () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ name: `a-rather-long-server-name-number-${i}`, tools: ['one', 'two'] }));
    const text = runDescription(many, LIMITS);
    assert.ok(text.length <= DESCRIPTION_MAX, `${text.length}`);
    const last = text.split('\n').at(-1)!;
    const match = /^- … (\d+) more servers not shown: tools\.mcp_list\(\{\}\) names them$/.exec(last);
    assert.ok(match, last);
    const named = text.split('\n').filter((l) => l.startsWith('- a-rather-long')).length;
    assert.equal(named + Number(match[1]), 200);
  });

  describe('through a real MCP client over stdio', () => {
    let serve: StdioServe | undefined;
    afterEach(async () => {
      await serve?.close();
      serve = undefined;
    });

    it('tools/list carries the same fitted description with 30 servers', async () => {
      writeConfig(tmp.dir, servers(30));
      serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir });
      const { tools } = await serve.client.listTools();
      const description = tools[0]!.description!;
      assert.ok(description.length <= DESCRIPTION_MAX, `${description.length}`);
      assert.equal(serverLines(description).length, 30);
      assert.doesNotMatch(description, /Signatures/);
    });

    it('keeps a result at the default budget under the 25,000 tokens Claude Code takes (4 characters a token)', async () => {
      writeConfig(tmp.dir, servers(1));
      serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir });
      // Outputs past the budget, and a return value that pretty-printing would blow up.
      const result = await run(serve.client, "text('x'.repeat(40000)); console.log('y'.repeat(5000)); return Array.from({ length: 7000 }, (_, i) => i % 10);");
      const characters = texts(result).join('').length;
      assert.ok(characters <= 2 * SERVE_OUTPUT_LIMIT_BYTES + 200, `${characters} characters`);
      assert.ok(characters / 4 < 25_000, `about ${Math.round(characters / 4)} tokens`);
      assert.equal((result.structuredContent?.['result'] as number[]).length, 7000);
    });

    it('--signatures adds every tool signature, as mcp_describe types them', async () => {
      writeConfig(tmp.dir, servers(3));
      serve = await serveStdio(['--config', 'mcp.json', '--signatures'], { cwd: tmp.dir });
      const { tools } = await serve.client.listTools();
      const description = tools[0]!.description!;
      const signatures = description.slice(description.indexOf('\nSignatures'));
      assert.ok(signatures.length > 1, description);
      const described = await host.describe({ server: 'everything-01' });
      assert.ok('tools' in described);
      for (const [name, signature] of Object.entries(described.tools)) {
        assert.ok(signatures.includes(`\n  ${name}${signature}`), `${name}${signature}`);
      }
      assert.match(signatures, /\n {2}echo\(\{ message: string \}\)/);
      for (const name of toolsOf.get('memory')!) assert.match(signatures, new RegExp(`\\n  ${name}\\(`));
    });
  });
});
