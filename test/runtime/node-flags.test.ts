import assert from 'node:assert/strict';
import { checkNodeFlags } from '../../src/runtime/index.js';
import { hasNoNodeSnapshot } from '../../src/runtime/node-flags.js';

describe('checkNodeFlags', () => {
  it('finds --no-node-snapshot in the arguments or in NODE_OPTIONS', () => {
    assert.equal(hasNoNodeSnapshot(['--no-node-snapshot'], undefined), true);
    assert.equal(hasNoNodeSnapshot([], '--max-old-space-size=100  --no-node-snapshot'), true);
    assert.equal(hasNoNodeSnapshot(['--inspect'], '--no-node-snapshots'), false);
    assert.equal(hasNoNodeSnapshot([], undefined), false);
  });

  it('passes in this process (mocha runs with the flag)', () => {
    assert.doesNotThrow(() => checkNodeFlags());
  });
});
