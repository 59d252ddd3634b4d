import assert from 'node:assert/strict';
import { runDescription, SERVER_LINE_MAX } from '../../src/serve/description.js';

const LIMITS = { defaultTimeoutSeconds: 300, maxTimeoutSeconds: 300, memoryLimitMb: 128, outputLimitBytes: 1048576 };

describe('serve: runDescription', () => {
  it('keeps each server line within the cap and says when there are none', () => {
    const text = runDescription([{ name: 'docs', summary: 'x'.repeat(500) }], LIMITS);
    const line = text.split('\n').find((l) => l.startsWith('- docs:'))!;
    assert.equal(line.length, SERVER_LINE_MAX);
    assert.match(runDescription([], LIMITS), /\(none configured: add servers to mcp\.json\)$/);
  });
});
