// What a model reads, measured against the reference servers (issues 13 and 35): describe of one
// tool ≤ its raw definition, describe of a server ≤ 0.5× its raw lists and ≤ 0.5× its raw
// tools/list (instructions apart), list ≤ 0.2× raw tools/list.
// Raw sizes come from a plain SDK client on the same servers, as compact JSON; berry-mcp's answers
// are measured as a script prints them with text() (JSON with two-space indentation).
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { createMcpHost, type ServerDescription } from '../../src/bindings/index.js';
import { printedSize as text, type RawLists, rawLists, referenceServers, type ReferenceServer } from '../support/reference-lists.js';
import { useTestHost } from '../support/test-host.js';
import { appHiding } from '../../src/bindings/catalog/app-visibility.js';

/** What a model is shown of a server's tools: not those only its MCP App may call. */
const modelTools = (lists: RawLists): { name: string }[] => lists.tools.filter((tool) => appHiding(tool as Tool) === undefined);

describe('token economy against the reference servers', function () {
  this.timeout(60_000);
  let servers: Record<string, ReferenceServer> = {};
  const raw: Record<string, RawLists> = {};
  /** Ratios measured here, printed once for docs/operations.md. */
  const measured: string[] = [];

  const t = useTestHost(
    (dir) => {
      servers = referenceServers(dir);
      return servers;
    },
    { create: createMcpHost },
  );

  before(async () => {
    for (const [name, s] of Object.entries(servers)) raw[name] = await rawLists(s);
  });

  after(async () => {
    if (measured.length > 0) console.log(`      measured: ${measured.join('; ')}`);
  });

  it('describe of one tool is at most its raw definition, for every tool of every reference server', async () => {
    let worst = 0;
    let sumOut = 0;
    let sumRaw = 0;
    for (const [server, lists] of Object.entries(raw)) {
      for (const tool of modelTools(lists)) {
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

  it('describe of a server is at most 0.5× its raw tools/list (its instructions apart) and 0.5× all its raw lists', async () => {
    for (const server of Object.keys(raw)) {
      const described = (await t.host.describe({ server })) as ServerDescription;
      // The server's instructions (from initialize, in no list) are passed on whole: a model needs
      // them as the server wrote them. Against all the lists they count too.
      const instructions = described.instructions === undefined ? 0 : text({ instructions: described.instructions }) - 4;
      const ofAll = text(described) / raw[server]!.allJson;
      const ofTools = (text(described) - instructions) / raw[server]!.toolsJson;
      measured.push(`describe(${server}) ${ofAll.toFixed(2)}× its lists, ${ofTools.toFixed(2)}× its tools/list without its instructions`);
      assert.ok(ofAll <= 0.5, `${server}: ${ofAll.toFixed(2)}× its raw lists`);
      assert.ok(ofTools <= 0.5, `${server}: ${ofTools.toFixed(2)}× its raw tools/list`);
      assert.deepEqual(
        Object.keys(described.tools),
        modelTools(raw[server]!).map((t) => t.name),
      );
    }
    const memory = (await t.host.describe({ server: 'memory' })) as ServerDescription;
    assert.match(memory.tools['create_entities']!, /^\(\{ entities: \{ name: string; entityType: string; observations: string\[\] \}\[\] \}\) => /);
    const everything = (await t.host.describe({ server: 'everything' })) as ServerDescription;
    for (const list of [everything.prompts, everything.resources, everything.resourceTemplates]) assert.ok(Object.keys(list).length > 0);
    assert.match(everything.tools['simulate-research-query']!, /\[task required\]$/);
    assert.match(everything.tools['echo']!, /^\(\{ message: string \}\) — Echoes back the input string \[readOnly\]$/);
  });

  it('list of the reference servers is at most 0.2× their raw tools/list', async () => {
    const list = await t.host.list({});
    const rawTools = Object.values(raw).reduce((sum, r) => sum + r.toolsJson, 0);
    const ratio = text(list) / rawTools;
    measured.push(`list ${ratio.toFixed(2)}× of ${rawTools} raw chars`);
    assert.ok(ratio <= 0.2, `${ratio.toFixed(2)}×`);
  });
});
