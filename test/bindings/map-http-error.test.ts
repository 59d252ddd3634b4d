import assert from 'node:assert/strict';
import { ProtocolError as McpError } from '@modelcontextprotocol/client';
import { mapSdkError, type ErrorContext } from '../../src/bindings/connection/failures.js';
import { isSessionExpired } from '../../src/bindings/connection/failures.js';
import { HttpStatusError, STREAM_LOST_MARK } from '../../src/remote/transport/index.js';

const context: ErrorContext = {
  server: 'docs',
  operation: 'tools/call "search"',
  timeoutMs: 60_000,
  redact: (text) => text.replaceAll('s3cret-token', '***'),
  closedDetail: () => '',
};

function status(code: number, extra: Partial<ConstructorParameters<typeof HttpStatusError>[0]> = {}): HttpStatusError {
  return new HttpStatusError({ status: code, statusText: '', method: 'POST', hadSession: true, challenge: undefined, body: '', ...extra });
}

describe('map-http-error', () => {
  it('a lost session is a 404, or the 400 server-everything sends, to a request that carried a session id', () => {
    assert.equal(isSessionExpired(status(404)), true);
    // The exact body server-everything 2026.8.31 sends (dist/transports/streamableHttp.js).
    const body = '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}';
    assert.equal(isSessionExpired(status(400, { body })), true);
    assert.equal(isSessionExpired(status(400, { body: 'malformed body' })), false);
    assert.equal(isSessionExpired(status(500, { body: 'session store down' })), false);
    // Without a session id, a 404 is a wrong URL, not an expired session.
    assert.equal(isSessionExpired(status(404, { hadSession: false })), false);
    assert.equal(mapSdkError(status(404), context).code, 'MCP_SESSION_EXPIRED');
  });

  it('an error status fails the call as MCP_PROTOCOL_ERROR naming the status, what it means and the redacted body', () => {
    const error = mapSdkError(status(500, { statusText: 'Internal Server Error', body: 'boom s3cret-token' }), context);
    assert.equal(error.code, 'MCP_PROTOCOL_ERROR');
    assert.match(error.message, /server "docs" \(tools\/call "search"\) answered HTTP 500 Internal Server Error to POST \(the server failed/);
    assert.match(error.message, /: boom \*\*\*\. This call failed; the connection stays open\./);
    assert.match(mapSdkError(status(404, { hadSession: false }), context).message, /no MCP endpoint at this URL/);
  });

  it('401 is MCP_AUTH_REQUIRED naming the realm and scope of the challenge', () => {
    const error = mapSdkError(status(401, { challenge: 'Bearer realm="docs \\"eu\\"", scope="read write", error="invalid_token"' }), context);
    assert.equal(error.code, 'MCP_AUTH_REQUIRED');
    assert.match(error.message, /Server "docs" needs authorization: it answered HTTP 401 \(Bearer, realm "docs "eu"", scope "read write"\)/);
    assert.match(mapSdkError(status(401), context).message, /answered HTTP 401\. Give the credentials/);
  });

  it('a response stream that could not be resumed is MCP_TRANSPORT_CLOSED; a bad JSON body is a protocol error', () => {
    const lost = new McpError(-32000, 'the server ended the response stream before answering', { [STREAM_LOST_MARK]: true });
    const mapped = mapSdkError(lost, context);
    assert.equal(mapped.code, 'MCP_TRANSPORT_CLOSED');
    assert.match(mapped.message, /ended the response stream before answering\. The call was not retried; the session stays open/);
    assert.equal(mapSdkError(new SyntaxError('Unexpected end of JSON input'), context).code, 'MCP_PROTOCOL_ERROR');
  });
});
