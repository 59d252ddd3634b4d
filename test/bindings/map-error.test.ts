import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { mapSdkError, type ErrorContext } from '../../src/bindings/map-error.js';

const context: ErrorContext = {
  server: 'docs',
  operation: 'tools/call "search"',
  timeoutMs: 60_000,
  redact: (text) => text.replaceAll('s3cret-token', '***'),
  closedDetail: () => '',
};

describe('map-error', () => {
  it('keeps what the server said no to apart from what could not be asked', () => {
    const said = mapSdkError(new McpError(-32602, 'Unknown tool: s3cret-token'), context);
    assert.equal(said.code, 'MCP_PROTOCOL_ERROR');
    assert.equal((said as { rpcCode?: number }).rpcCode, -32602);
    assert.match(said.message, /server "docs" \(tools\/call "search"\) returned error -32602: Unknown tool: \*\*\*/);
    assert.equal(mapSdkError(new McpError(-32001, 'Request timed out'), context).code, 'MCP_TIMEOUT');
    assert.equal(mapSdkError(new McpError(-32000, 'Connection closed'), context).code, 'MCP_TRANSPORT_CLOSED');
    const network = mapSdkError(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }), context);
    assert.equal(network.code, 'MCP_TRANSPORT_CLOSED');
    assert.match(network.message, /fetch failed: connect ECONNREFUSED/);
  });
});
