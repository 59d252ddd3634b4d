import assert from 'node:assert/strict';
import { Holders, parseServeTokens } from '../../src/serve/http/holders.js';
import { normalizeHttpLimits, share } from '../../src/serve/http/http-limits.js';

const A = 'alice-token-0123456789';
const B = 'bob+token/0123456789==';

describe('serve: token holders and their caps', () => {
  it('reads NAME TOKEN lines, skipping blanks and comments', () => {
    assert.deepEqual(parseServeTokens(`# who may run code here\n\nalice ${A}\r\n  bob\t${B}  \n`, 'tokens'), [
      { name: 'alice', token: A },
      { name: 'bob', token: B },
    ]);
  });

  it('refuses a file that is not one, naming the line and never its text', () => {
    const cases: [string, RegExp][] = [
      [`alice ${A} extra`, /tokens line 1: expected NAME TOKEN \(two fields separated by blanks\), got 3 fields/],
      [`alice`, /line 1: expected NAME TOKEN .* got 1 field$/],
      [`al/ice ${A}`, /line 1: a name is 1 to 64 letters, digits/],
      [`alice short-secret`, /line 1: a token is 16 to 512 visible ASCII characters/],
      [`alice ${A}\nalice ${B}`, /line 2: the name "alice" is given twice/],
      [`alice ${A}\nbob ${A}`, /line 2: this token is given twice/],
      ['# nothing\n', /tokens: no tokens/],
    ];
    for (const [text, pattern] of cases) {
      assert.throws(
        () => parseServeTokens(text, 'tokens'),
        (error: Error) => {
          assert.match(error.message, pattern);
          for (const secret of [A, B, 'short-secret']) assert.ok(!error.message.includes(secret), error.message);
          return true;
        },
      );
    }
  });

  it('names the holder of a request by its token, and none for any other header', () => {
    const holders = new Holders(parseServeTokens(`alice ${A}\nbob ${B}`, 'tokens'), normalizeHttpLimits({}, { limit: 8, holders: 2 }));
    assert.equal(holders.authenticate(`Bearer ${B}`)?.name, 'bob');
    assert.equal(holders.authenticate(`Bearer ${A}`)?.name, 'alice');
    for (const other of [undefined, '', A, `Bearer ${A} `, `bearer ${A}`, `Bearer ${A.slice(0, -1)}`])
      assert.equal(holders.authenticate(other), undefined, String(other));
  });

  it('defaults a holder to three quarters of what is shared when there are several, to all of it when alone', () => {
    assert.deepEqual([1, 2, 3, 4, 8, 16].map(share), [1, 1, 2, 3, 6, 12]);
    assert.deepEqual(normalizeHttpLimits({}, { limit: 8, holders: 1 }), {
      maxSessions: 16,
      maxHolderSessions: 16,
      maxClientConcurrency: 6,
      maxHolderConcurrency: 8,
      maxHolderStreams: 16,
    });
    assert.deepEqual(normalizeHttpLimits({ maxSessions: 4 }, { limit: 8, holders: 3 }), {
      maxSessions: 4,
      maxHolderSessions: 3,
      maxClientConcurrency: 6,
      maxHolderConcurrency: 6,
      maxHolderStreams: 16,
    });
    assert.throws(
      () => normalizeHttpLimits({ maxHolderStreams: 0 }, { limit: 8, holders: 1 }),
      /maxHolderStreams \(serve --max-holder-streams\) must be a whole number from 1 to 1024, got 0/,
    );
    assert.throws(() => normalizeHttpLimits({ maxClientConcurrency: 2.5 }, { limit: 8, holders: 1 }), /from 1 to maxConcurrency \(8\), got 2.5/);
  });
});
