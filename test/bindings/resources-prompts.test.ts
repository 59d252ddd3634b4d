// mcp_read and mcp_prompt against server-everything (which publishes both), in the library and in
// scripts; servers without the capability say so.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ServerDescription } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, memoryPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('resources and prompts', function () {
  this.timeout(60_000);

  const t = useTestHost((dir) => ({
    everything: { command: process.execPath, args: [everythingPath] },
    memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'm.jsonl') } },
    plain: faultEntry(),
  }));

  const code =
    (expected: string) =>
    (error: unknown): boolean => {
      assert.ok(isBerryError(error), String(error));
      assert.equal(error.code, expected, error.message);
      return true;
    };

  it('lists resources, resource templates and prompts in describe', async () => {
    const described = (await t.host.describe({ server: 'everything' })) as ServerDescription;
    assert.match(described.resources['demo://resource/static/document/features.md'] ?? '', /text\/markdown/);
    assert.ok('demo://resource/dynamic/text/{resourceId}' in described.resourceTemplates);
    assert.equal(described.prompts['args-prompt'], '(city, state?) — A prompt with two arguments, one required and one optional');
    const plain = (await t.host.describe({ server: 'plain' })) as ServerDescription;
    assert.deepEqual([plain.resources, plain.resourceTemplates, plain.prompts], [{}, {}, {}]);
  });

  it('reads a text resource, and a blob from a template the caller filled in', async () => {
    const doc = await t.host.read({ server: 'everything', uri: 'demo://resource/static/document/features.md' });
    const first = doc.contents[0]!;
    assert.equal(first.uri, 'demo://resource/static/document/features.md');
    assert.ok('text' in first && first.text.length > 100);
    const blob = await t.host.read({ server: 'everything', uri: 'demo://resource/dynamic/blob/3' });
    assert.ok('blob' in blob.contents[0]! && Buffer.from(blob.contents[0].blob, 'base64').length > 0);
  });

  it('rejects an unknown resource MCP_UNKNOWN_RESOURCE naming what exists, closest first', async () => {
    await assert.rejects(t.host.read({ server: 'everything', uri: 'demo://resource/static/document/feature.md' }), (error: unknown) => {
      code('MCP_UNKNOWN_RESOURCE')(error);
      assert.match(
        (error as Error).message,
        /has no resource "demo:\/\/resource\/static\/document\/feature\.md"\. Its resources: demo:\/\/resource\/static\/document\/features\.md, /,
      );
      assert.match((error as Error).message, /Templates \(fill them in\): demo:\/\/resource\/dynamic\/text\/\{resourceId\}/);
      return true;
    });
  });

  it('says so when a server publishes no resources or no prompts', async () => {
    await assert.rejects(t.host.read({ server: 'plain', uri: 'file:///x' }), (error: unknown) => {
      code('MCP_UNKNOWN_RESOURCE')(error);
      assert.match((error as Error).message, /publishes no resources/);
      return true;
    });
    await assert.rejects(t.host.prompt({ server: 'plain', name: 'x' }), (error: unknown) => {
      code('MCP_UNKNOWN_PROMPT')(error);
      assert.match((error as Error).message, /publishes no prompts/);
      return true;
    });
  });

  it('gets a prompt filled with its arguments', async () => {
    const prompt = await t.host.prompt({ server: 'everything', name: 'args-prompt', arguments: { city: 'Paris', state: 'IDF' } });
    const message = prompt.messages[0]!;
    assert.equal(message.role, 'user');
    assert.ok(message.content.type === 'text' && message.content.text.includes('Paris'), JSON.stringify(message));
  });

  it('rejects an unknown prompt (closest first) and a missing required argument before sending', async () => {
    await assert.rejects(t.host.prompt({ server: 'everything', name: 'args-promt' }), (error: unknown) => {
      code('MCP_UNKNOWN_PROMPT')(error);
      assert.match((error as Error).message, /has no prompt "args-promt"\. Its prompts: args-prompt, /);
      return true;
    });
    await assert.rejects(t.host.prompt({ server: 'everything', name: 'args-prompt', arguments: {} }), (error: unknown) => {
      code('MCP_INVALID_ARGUMENT')(error);
      assert.match((error as Error).message, /needs "city"\. Its arguments: city, state\?/);
      return true;
    });
    await assert.rejects(t.host.prompt({ server: 'everything', name: 'args-prompt', arguments: { city: { x: 1 } } as never }), code('MCP_INVALID_ARGUMENT'));
  });

  it('gives scripts the same through tools.mcp_read and tools.mcp_prompt', async () => {
    const record = await t.host.run(`
const doc = await tools.mcp_read({ server: "everything", uri: "demo://resource/dynamic/text/7" });
text(doc.contents[0].text);
const p = await tools.mcp_prompt({ server: "everything", name: "args-prompt", arguments: { city: "Oslo" } });
text(p.messages[0].content.text);
try { await tools.mcp_read({ server: "memory", uri: "x://y" }); } catch (e) { text(e.code); }
try { await tools.mcp_prompt({ server: "everything", name: "nope" }); } catch (e) { text(e.code); }`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const texts = record.outputs.map((o) => (o.type === 'text' ? o.text : ''));
    assert.match(texts[0]!, /7/);
    assert.match(texts[1]!, /Oslo/);
    assert.deepEqual(texts.slice(2), ['MCP_UNKNOWN_RESOURCE', 'MCP_UNKNOWN_PROMPT']);
  });
});
