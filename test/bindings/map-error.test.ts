import assert from 'node:assert/strict';
import { ProtocolError as McpError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { mapSdkError, type ErrorContext } from '../../src/bindings/connection/failures.js';

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
    assert.equal(mapSdkError(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 60_000 }), context).code, 'MCP_TIMEOUT');
    // The old timeout code from the server itself is its answer, not our timeout.
    assert.equal(mapSdkError(new McpError(-32001, 'Request timed out'), context).code, 'MCP_PROTOCOL_ERROR');
    assert.equal(mapSdkError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), context).code, 'MCP_TRANSPORT_CLOSED');
    const network = mapSdkError(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }), context);
    assert.equal(network.code, 'MCP_TRANSPORT_CLOSED');
    assert.match(network.message, /fetch failed: connect ECONNREFUSED/);
  });

  it('blames the right party: only a transport that really ended is MCP_TRANSPORT_CLOSED', () => {
    const open = { ...context, transportClosed: () => false };
    const ended = { ...context, transportClosed: () => true };
    // -32000 "Connection closed" from a server is its answer; the SDK's own close needs an ended transport.
    const serverSaid = mapSdkError(new McpError(-32000, 'Connection closed'), ended);
    assert.equal(serverSaid.code, 'MCP_PROTOCOL_ERROR');
    assert.equal(mapSdkError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), open).code, 'MCP_PROTOCOL_ERROR');
    assert.equal(mapSdkError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), ended).code, 'MCP_TRANSPORT_CLOSED');
    // Unknown failures take the least destructive class: this call failed, the connection lives.
    const unknown = mapSdkError(new Error('something odd\non two lines'), open);
    assert.equal(unknown.code, 'MCP_PROTOCOL_ERROR');
    assert.match(unknown.message, /failed: something odd on two lines$/);
    assert.equal(mapSdkError(new Error('Not connected'), open).code, 'MCP_TRANSPORT_CLOSED');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    assert.equal(mapSdkError(new TypeError('fetch failed', { cause: reset }), open).code, 'MCP_TRANSPORT_CLOSED');
  });

  it('says a JSON-RPC error code once, and a malformed result in one line', () => {
    const twice = mapSdkError(new McpError(-32077, 'MCP error -32077: boom'), context);
    assert.match(twice.message, /returned error -32077: boom$/);
    const zod = Object.assign(new Error('[\n  {\n "code": "invalid_type" } ]'), {
      name: 'ZodError',
      issues: [{ path: ['content'], message: 'Invalid input: expected array, received string' }],
    });
    const malformed = mapSdkError(zod, context);
    assert.equal(malformed.code, 'MCP_PROTOCOL_ERROR');
    assert.match(malformed.message, /malformed result: content: Invalid input: expected array, received string\./);
  });
});
