import assert from 'node:assert/strict';
import { validateRunArguments } from '../../src/serve/validate.js';

describe('serve: validateRunArguments', () => {
  it('accepts code and an in-range timeoutSeconds', () => {
    assert.deepEqual(validateRunArguments({ code: 'return 1', timeoutSeconds: 0.5 }, 10), { code: 'return 1', timeoutSeconds: 0.5 });
  });
  it('names the bad field', () => {
    assert.match(validateRunArguments(undefined, 10) as string, /arguments must be an object/);
    assert.match(validateRunArguments({ code: null }, 10) as string, /"code" must be a string of JavaScript, got null/);
    assert.match(validateRunArguments({ code: ' ' }, 10) as string, /"code" is empty/);
    assert.match(validateRunArguments({ code: 'x', a: 1, b: 2 }, 10) as string, /unknown arguments "a", "b"/);
    assert.match(validateRunArguments({ code: 'x', timeoutSeconds: Number.NaN }, 10) as string, /"timeoutSeconds" .* at most 10, got NaN/);
    assert.match(validateRunArguments({ code: 'x', timeoutSeconds: 11 }, 10) as string, /got 11/);
  });
});
