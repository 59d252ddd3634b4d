import assert from 'node:assert/strict';
import { createTempTree, type TempTree } from './temp-machine.js';
import { configErrorOf, httpOf, loadWith, stdioOf } from './load-helpers.js';

// Configs copied from Claude Code, VS Code and Cursor carry a "type" beside "command"/"url".
describe('config/validate: the "type" key', () => {
  let tree: TempTree;
  before(async () => {
    tree = await createTempTree();
  });
  after(async () => {
    await tree.remove();
  });

  it('accepts "stdio", "http" and "streamable-http" when they agree with command/url', async () => {
    const loaded = await loadWith(tree, {
      mcpServers: {
        s: { type: 'stdio', command: 'node' },
        h: { type: 'http', url: 'https://example.com/mcp' },
        sh: { type: 'streamable-http', url: 'https://example.com/mcp' },
      },
    });
    assert.equal(stdioOf(loaded, 's').command, 'node');
    assert.equal(httpOf(loaded, 'h').url, 'https://example.com/mcp');
    assert.equal(httpOf(loaded, 'sh').url, 'https://example.com/mcp');
  });

  it('keeps the fingerprint of an entry unchanged by a redundant "type"', async () => {
    const plain = httpOf(await loadWith(tree, { mcpServers: { h: { url: 'https://example.com/mcp' } } }), 'h');
    const typed = httpOf(await loadWith(tree, { mcpServers: { h: { type: 'http', url: 'https://example.com/mcp' } } }), 'h');
    assert.equal(typed.fingerprint, plain.fingerprint);
  });

  it('refuses a type that contradicts the entry, "sse", an unknown type and a non-string', async () => {
    const loaded = await loadWith(tree, {
      mcpServers: {
        a: { type: 'http', command: 'node' },
        b: { type: 'stdio', url: 'https://example.com/mcp' },
        c: { type: 'sse', url: 'https://example.com/sse' },
        d: { type: 'websocket', url: 'wss://example.com/' },
        e: { type: 1, command: 'node' },
        ok: { command: 'node' },
      },
    });
    const a = configErrorOf(loaded, 'a');
    assert.equal(a.code, 'MCP_CONFIG_INVALID');
    assert.equal(a.jsonPath, '$.mcpServers.a.type');
    assert.match(a.message, /\.type is "http" but the entry has "command" \(a stdio server\); make them agree or remove "type"/);
    assert.match(configErrorOf(loaded, 'b').message, /\.type is "stdio" but the entry has "url" \(an HTTP server\)/);
    const sse = configErrorOf(loaded, 'c');
    assert.match(sse.message, /\.type is "sse", the legacy HTTP\+SSE transport, which berry-mcp does not speak \(Streamable HTTP only\)/);
    assert.match(configErrorOf(loaded, 'd').message, /\.type must be "stdio", "http" or "streamable-http", got "websocket"/);
    assert.match(configErrorOf(loaded, 'e').message, /\.type must be "stdio", "http" or "streamable-http", got number/);
    assert.equal(stdioOf(loaded, 'ok').command, 'node', 'a bad entry must not break the others');
  });
});
