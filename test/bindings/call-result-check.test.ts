// checkCallResult (src/bindings/connection/call-result-check.ts) against the SDK's CallToolResult schema:
// the fast path takes only results the schema would hand back unchanged, and every result is
// checked (and defaulted) as the schema checks it.
import assert from 'node:assert/strict';
import { specTypeSchemas } from '@modelcontextprotocol/client';
import { checkCallResult, isPlainTextResult } from '../../src/bindings/connection/call-result-check.js';

const schema = specTypeSchemas.CallToolResult['~standard'];

/** The value the check gives, or that it found issues (their wording is the schema's own either way). */
function outcome(result: { value?: unknown; issues?: readonly unknown[] | undefined }): unknown {
  return result.issues === undefined ? { value: result.value } : { issues: result.issues.length > 0 };
}

const FAST: unknown[] = [
  { content: [{ type: 'text', text: 'Echo: bench' }] },
  { content: [] },
  {
    content: [
      { type: 'text', text: '' },
      { text: 'b', type: 'text' },
    ],
    isError: true,
  },
  { content: [{ type: 'text', text: 'x' }], structuredContent: { n: 1, list: [1, 'a'] } },
  { content: [{ type: 'text', text: 'x' }], structuredContent: 'not an object', isError: false },
];

const SLOW: unknown[] = [
  {},
  { structuredContent: { n: 1 } },
  { content: [{ type: 'text', text: 'x', annotations: { priority: 0.5 } }] },
  { content: [{ type: 'text', text: 'x', annotations: { priority: 2 } }] },
  { content: [{ type: 'text', text: 'x', extra: 1 }] },
  { content: [{ type: 'text', text: 7 }] },
  { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] },
  { content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] },
  { content: [{ type: 'resource_link', uri: 'file:///x', name: 'x' }] },
  { content: [{ type: 'text', text: 'x' }], _meta: { a: 1 } },
  { content: [{ type: 'text', text: 'x' }], isError: 'yes' },
  { content: [{ type: 'text', text: 'x' }], custom: 1 },
  { content: 'nope' },
  { content: [null] },
  { content: [['text']] },
  [],
  null,
  'text',
];

describe('checkCallResult: a tools/call result as the SDK checks it', () => {
  for (const raw of [...FAST, ...SLOW]) {
    it(`checks ${JSON.stringify(raw)} as the SDK's schema does`, () => {
      assert.deepEqual(outcome(checkCallResult(raw)), outcome(schema.validate(raw) as { value?: unknown; issues?: readonly unknown[] }));
    });
  }

  it('takes the fast path for text-only results, and only for them', () => {
    assert.deepEqual(
      [...FAST, ...SLOW].map((raw) => isPlainTextResult(raw)),
      [...FAST.map(() => true), ...SLOW.map(() => false)],
    );
  });
});
