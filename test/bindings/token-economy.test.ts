// What a model reads, measured against the three reference servers (issue 13): describe of one
// tool ≤ its raw definition, describe of a server ≤ 0.5× its raw lists, list ≤ 0.2× raw tools/list.
// Raw sizes come from a plain SDK client on the same servers, as compact JSON; berry-mcp's answers
// are measured as a script prints them with text() (JSON with two-space indentation).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMcpHost, type ServerDescription } from '../../src/bindings/index.js';
import { everythingPath, filesystemPath, memoryPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { ELICITATION_CAPABILITIES } from '../../src/bindings/operations/elicitation.js';

interface Raw {
  tools: { name: string }[];
  toolsJson: number;
  allJson: number;
}

async function rawLists(args: string[], env: Record<string, string> = {}): Promise<Raw> {
  // The same capabilities as berry-mcp's client: server-everything lists more tools to a client that can elicit.
  const client = new Client({ name: 'raw', version: '1' }, { capabilities: ELICITATION_CAPABILITIES });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'ignore' }),
  );
  try {
    const caps = client.getServerCapabilities() ?? {};
    const tools = await client.listTools();
    let allJson = JSON.stringify(tools).length;
    if (caps.resources) {
      allJson += JSON.stringify(await client.listResources()).length;
      allJson += JSON.stringify(await client.listResourceTemplates()).length;
    }
    if (caps.prompts) allJson += JSON.stringify(await client.listPrompts()).length;
    return { tools: tools.tools, toolsJson: JSON.stringify(tools).length, allJson };
  } finally {
    await client.close();
  }
}

const text = (value: unknown): number => JSON.stringify(value, null, 2).length;

describe('token economy against the reference servers', function () {
  this.timeout(60_000);
  const servers: Record<string, { args: string[]; env?: Record<string, string> }> = {};
  const raw: Record<string, Raw> = {};
  /** Ratios measured here, printed once for docs/operations.md. */
  const measured: string[] = [];

  const t = useTestHost(
    (dir) => {
      servers['everything'] = { args: [everythingPath] };
      servers['files'] = { args: [filesystemPath, dir] };
      servers['memory'] = { args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } };
      return Object.fromEntries(
        Object.entries(servers).map(([name, s]) => [name, { command: process.execPath, args: s.args, ...(s.env ? { env: s.env } : {}) }]),
      );
    },
    { create: createMcpHost },
  );

  before(async () => {
    for (const [name, s] of Object.entries(servers)) raw[name] = await rawLists(s.args, s.env);
  });

  after(async () => {
    if (measured.length > 0) console.log(`      measured: ${measured.join('; ')}`);
  });

  it('describe of one tool is at most its raw definition, for every tool of the three servers', async () => {
    let worst = 0;
    let sumOut = 0;
    let sumRaw = 0;
    for (const [server, lists] of Object.entries(raw)) {
      for (const tool of lists.tools) {
        const described = await t.host.describe({ server, tool: tool.name });
        const size = text(described);
        const rawSize = JSON.stringify(tool).length;
        assert.ok(size <= rawSize, `${server}/${tool.name}: ${size} chars described > ${rawSize} raw`);
        worst = Math.max(worst, size / rawSize);
        sumOut += size;
        sumRaw += rawSize;
      }
    }
    measured.push(`describe(tool) worst ${worst.toFixed(2)}×, all tools ${(sumOut / sumRaw).toFixed(2)}×`);
  });

  it('describe of a tool keeps nested argument types (enough to call it)', async () => {
    const create = await t.host.describe({ server: 'memory', tool: 'create_entities' });
    assert.ok('arguments' in create);
    assert.match(create.arguments, /entities: \{ \/\*\* The name of the entity \*\/ name: string; .*observations: string\[\] \}\[\]/);
    const research = await t.host.describe({ server: 'everything', tool: 'simulate-research-query' });
    assert.ok('taskSupport' in research && research.taskSupport === 'required');
  });

  it('describe of a server is at most 0.5× its raw tools, resources, templates and prompts lists', async () => {
    for (const server of Object.keys(raw)) {
      const described = (await t.host.describe({ server })) as ServerDescription;
      // All of it counts, the server's instructions too (they come from initialize, not the lists).
      const instructions = described.instructions === undefined ? 0 : text({ instructions: described.instructions }) - 4;
      const ratio = text(described) / raw[server]!.allJson;
      measured.push(
        `describe(${server}) ${ratio.toFixed(2)}× (${((text(described) - instructions) / raw[server]!.allJson).toFixed(2)}× without its instructions)`,
      );
      assert.ok(ratio <= 0.5, `${server}: ${ratio.toFixed(2)}× raw`);
      assert.deepEqual(
        Object.keys(described.tools),
        raw[server]!.tools.map((t) => t.name),
      );
    }
    const memory = (await t.host.describe({ server: 'memory' })) as ServerDescription;
    assert.match(memory.tools['create_entities']!, /^\(\{ entities: \{ name: string; entityType: string; observations: string\[\] \}\[\] \}\) => /);
    const everything = (await t.host.describe({ server: 'everything' })) as ServerDescription;
    for (const list of [everything.prompts, everything.resources, everything.resourceTemplates]) assert.ok(Object.keys(list).length > 0);
    assert.match(everything.tools['simulate-research-query']!, /\[task required\]$/);
    assert.match(everything.tools['echo']!, /^\(\{ message: string \}\) — Echoes back the input string \[readOnly\]$/);
  });

  it('list of the three servers is at most 0.2× their raw tools/list', async () => {
    const list = await t.host.list({});
    const rawTools = Object.values(raw).reduce((sum, r) => sum + r.toolsJson, 0);
    const ratio = text(list) / rawTools;
    measured.push(`list ${ratio.toFixed(2)}× of ${rawTools} raw chars`);
    assert.ok(ratio <= 0.2, `${ratio.toFixed(2)}×`);
  });
});
