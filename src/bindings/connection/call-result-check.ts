/**
 * A `tools/call` result checked as the SDK's own CallToolResult schema checks it, with a fast path
 * for the result most tools return: text blocks and nothing else.
 *
 * The schema's union of five content types costs ≈ 2 µs a call with the caches cold (the answer
 * has just woken the host; docs/performance.md). A result whose keys are `content` (an array of
 * blocks that are exactly `{type: "text", text: <string>}`), `isError` (a boolean) and
 * `structuredContent` (anything, as the schema allows) is one the schema passes unchanged: it is
 * taken as it is. Every other result (other block types, annotations, `_meta`, defaults to fill
 * in, any key the schema would copy or strip) goes through the schema.
 */
import { specTypeSchemas, type CallToolResult, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../common/json-object.js';

const CALL_RESULT = specTypeSchemas.CallToolResult;

export function checkCallResult(raw: unknown): StandardSchemaV1.Result<CallToolResult> {
  if (isPlainTextResult(raw)) return { value: raw };
  return CALL_RESULT['~standard'].validate(raw) as StandardSchemaV1.Result<CallToolResult>;
}

/** True when `raw` is a result the CallToolResult schema would hand back unchanged: text blocks only. */
export function isPlainTextResult(raw: unknown): raw is CallToolResult {
  if (!isJsonObject(raw)) return false;
  for (const key in raw) {
    if (key === 'isError') {
      if (typeof raw['isError'] !== 'boolean') return false;
    } else if (key !== 'content' && key !== 'structuredContent') return false;
  }
  const content = raw['content'];
  // Absent, it would be defaulted to []: the schema's work.
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (!isJsonObject(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return false;
    let keys = 0;
    for (const _key in block) keys++;
    if (keys !== 2) return false;
  }
  return true;
}
