// MCP Apps metadata on a tool: who may see it (_meta.ui.visibility, read fail-safe) and its ui:// resource.
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { appHiding, uiResourceOf } from '../../src/bindings/catalog/app-visibility.js';

const tool = (meta?: unknown): Tool => ({ name: 't', inputSchema: { type: 'object' }, ...(meta === undefined ? {} : { _meta: meta }) }) as Tool;

describe('mcp/catalog/app-visibility', () => {
  it('a tool with no visibility gets the default, ["model", "app"]; a list with "model" is the model\'s', () => {
    for (const meta of [
      undefined,
      {},
      { ui: null },
      { ui: {} },
      { ui: { visibility: null } },
      { ui: { resourceUri: 'ui://x' } },
      { ui: { visibility: ['model'] } },
      { ui: { visibility: ['app', 'model'] } },
      { ui: { visibility: ['model', 'future'] } },
    ]) {
      assert.equal(appHiding(tool(meta)), undefined, JSON.stringify(meta));
    }
  });

  it('a list without "model" is app-only; anything else in ui or visibility is malformed, and hidden', () => {
    for (const visibility of [['app'], [], ['Model'], ['app', 'agent'], [' model'], [['model']]]) {
      assert.equal(appHiding(tool({ ui: { visibility } })), 'app-only', JSON.stringify(visibility));
    }
    for (const meta of [
      { ui: 'app' },
      { ui: [] },
      { ui: 1 },
      { ui: true },
      { ui: { visibility: 'model' } },
      { ui: { visibility: { 0: 'model' } } },
      { ui: { visibility: 0 } },
    ]) {
      assert.equal(appHiding(tool(meta)), 'malformed', JSON.stringify(meta));
    }
  });

  it('reads own keys only: an inherited ui says nothing', () => {
    const meta = JSON.parse('{"__proto__": {"ui": {"visibility": ["app"]}}}') as Record<string, unknown>;
    assert.equal(appHiding(tool(meta)), undefined);
    assert.equal(appHiding(tool(Object.create({ ui: { visibility: ['app'] } }))), undefined);
  });

  it('the ui:// resource: _meta.ui.resourceUri first, then the deprecated flat key; only printable ui:// URIs', () => {
    assert.equal(uiResourceOf(tool({ ui: { resourceUri: 'ui://a/b.html' } })), 'ui://a/b.html');
    assert.equal(uiResourceOf(tool({ 'ui/resourceUri': 'ui://flat' })), 'ui://flat');
    assert.equal(uiResourceOf(tool({ ui: { resourceUri: 'ui://nested' }, 'ui/resourceUri': 'ui://flat' })), 'ui://nested');
    for (const uri of ['https://x/y', 'ui://', 'ui://a b', 'ui://a\u001b[2J', `ui://${'a'.repeat(1025)}`, 'UI://x', 7]) {
      assert.equal(uiResourceOf(tool({ ui: { resourceUri: uri } })), undefined, JSON.stringify(uri));
    }
    assert.equal(uiResourceOf(tool()), undefined);
  });
});
