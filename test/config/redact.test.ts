import assert from 'node:assert/strict';
import { createRedactor } from '../../src/config/index.js';

describe('config/redact', () => {
  it('replaces every occurrence of every secret with ***', () => {
    const redact = createRedactor(['tok-123', 'hunter22']);
    assert.equal(redact('a tok-123 b hunter22 c tok-123tok-123'), 'a *** b *** c ******');
  });

  it('redacts longest first so overlapping secrets vanish whole', () => {
    const redact = createRedactor(['abcd', 'abcdefgh', 'efgh-more']);
    assert.equal(redact('xx abcdefgh yy'), 'xx *** yy');
    assert.equal(redact('abcdefgh-more'), '***-more');
    assert.equal(redact('abcd efgh-more'), '*** ***');
  });

  it('treats regex metacharacters literally', () => {
    const secrets = ['a.b*c', '(x|y)', '[z]', '\\d+', '^$', 'q?{2}/-'];
    const redact = createRedactor(secrets);
    assert.equal(redact(secrets.join(' ')), '*** *** *** *** *** ***');
    assert.equal(redact('aXb*c xy z 12'), 'aXb*c xy z 12');
  });

  it('returns the text unchanged with no secrets, ignoring empty ones', () => {
    for (const secrets of [[], [''], new Set<string>()]) {
      const redact = createRedactor(secrets);
      assert.equal(redact('nothing to hide'), 'nothing to hide');
    }
    assert.equal(createRedactor(['', 'key1'])('key1 key'), '*** key');
  });

  it('accepts any iterable and can be reused many times', () => {
    const redact = createRedactor(new Set(['s3cr3t']).values());
    for (let i = 0; i < 3; i++) assert.equal(redact(`line ${i}: s3cr3t`), `line ${i}: ***`);
    assert.equal(redact(''), '');
  });

  it('redacts among many secrets in a large stderr chunk', () => {
    const redact = createRedactor(Array.from({ length: 50 }, (_, i) => `secret-value-${i}-xyz`));
    const chunk = 'ordinary log line with nothing special in it\n'.repeat(2000) + 'secret-value-7-xyz';
    assert.equal(redact(chunk), `${'ordinary log line with nothing special in it\n'.repeat(2000)}***`);
  });
});
