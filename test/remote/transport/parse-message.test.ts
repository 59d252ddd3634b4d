// parseMessage (src/remote/transport/stdio/parse-message.ts) against the SDK's deserializeMessage: the fast
// path takes only what the SDK's schema would hand back unchanged, and every line reads as the SDK
// reads it, failures included.
import assert from 'node:assert/strict';
import { deserializeMessage } from '@modelcontextprotocol/client';
import { isPlainResultResponse, parseMessage } from '../../../src/remote/transport/stdio/parse-message.js';

/** What reading `line` gives: the message, or the kind of failure. */
function outcome(read: (line: string) => unknown, line: string): unknown {
  try {
    return { message: read(line) };
  } catch (error) {
    return { failed: error instanceof SyntaxError ? 'SyntaxError' : 'schema' };
  }
}

const LINES = [
  // Result responses: the fast path.
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}',
  '{"result":{},"id":"abc","jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":0,"result":{"nested":{"a":[1,2,{"b":null}]},"isError":false}}',
  '{"jsonrpc":"2.0","id":-7,"result":{"x":1}}',
  // Close to it, for the SDK to judge.
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":"not an object"}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":3}}}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","id":true,"result":{}}',
  '{"jsonrpc":"2.0","result":{}}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":null}',
  '{"jsonrpc":"2.0","id":1,"result":"text"}',
  '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
  '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}',
  '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true}}}',
  '{"jsonrpc":"2.0","id":1,"__proto__":{},"result":{}}',
  // Every other kind of message.
  '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
  '{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"?"}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"},"id":null}',
  // Not messages at all.
  '[1,2]',
  '"text"',
  'null',
  '42',
  '{"jsonrpc":"2.0","id":1,"result":{}',
  'not json',
];

describe('parseMessage: a stdout line as a JSON-RPC message', () => {
  for (const line of LINES) {
    it(`reads ${line} as the SDK does`, () => {
      assert.deepEqual(outcome(parseMessage, line), outcome(deserializeMessage, line));
    });
  }

  it('takes the fast path for plain result responses only', () => {
    const fast = LINES.filter((line) => {
      try {
        return isPlainResultResponse(JSON.parse(line));
      } catch {
        return false;
      }
    });
    assert.deepEqual(fast, LINES.slice(0, 4));
  });

  it('hands a fast-path message on as parsed, with nothing copied', () => {
    const line = '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}],"custom":{"k":1}}}';
    assert.deepEqual(parseMessage(line), JSON.parse(line));
  });
});
