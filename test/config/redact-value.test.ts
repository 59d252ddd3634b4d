import assert from 'node:assert/strict';
import { createValueRedactor } from '../../src/config/index.js';
import type { ServerSlot } from '../../src/config/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { MAX_REDACTED_DEPTH } from '../../src/config/redact/redact-value.js';
import { maskedInValues } from '../../src/config/redact/redact.js';

const slots = (...secrets: string[][]): ServerSlot[] =>
  secrets.map((list, i) => ({ status: 'ok', name: `s${i}`, config: { secrets: list } }) as unknown as ServerSlot);

describe('config/redact-value: secrets in whole values from servers', () => {
  const SECRET = 'tok-5e2a9c71b0';
  const OTHER = 'pa55word-other';
  const redact = createValueRedactor(slots([SECRET], [OTHER, 'true', '1']));

  it("masks every server's secrets in strings and keys at any depth, copying only what changed", () => {
    const clean = { type: 'text', text: 'nothing here' };
    const input = { content: [clean, { type: 'text', text: `a ${SECRET} b` }], structuredContent: { [OTHER]: { deep: [[`x${OTHER}`]] }, n: 3, ok: true } };
    const before = JSON.stringify(input);
    const out = redact(input, 's0');
    assert.deepEqual(out, { content: [clean, { type: 'text', text: 'a *** b' }], structuredContent: { '***': { deep: [['x***']] }, n: 3, ok: true } });
    assert.equal(out.content[0], clean, 'an unchanged part is not copied');
    assert.equal(JSON.stringify(input), before, 'the input is not changed');
    const same = { content: [clean] };
    assert.equal(redact(same, 's0'), same);
  });

  it('leaves short, numeric and path values alone: they would corrupt ordinary results', () => {
    assert.deepEqual(redact({ ok: 'true', n: '1', list: [true] }, 's1'), { ok: 'true', n: '1', list: [true] });
    assert.equal(maskedInValues('true'), false);
    assert.equal(maskedInValues('12345678'), false);
    assert.equal(maskedInValues('/home/alice/project'), false);
    assert.equal(maskedInValues('~/data/x.json'), false);
    assert.equal(maskedInValues('short7!'), false);
    assert.equal(maskedInValues('production'), false);
    assert.equal(maskedInValues('literal value'), false);
    assert.equal(maskedInValues('Debug-Mode'), false);
    assert.equal(maskedInValues('correcthorsebatterystaple'), true);
    assert.equal(maskedInValues('AbCdEfGhIj'), true);
    assert.equal(maskedInValues('hunter22'), true);
    assert.equal(maskedInValues('sk-1234567'), true);
    assert.equal(maskedInValues('/x8J+dQ=='), true);
    assert.equal(maskedInValues('https://u:p@host/'), true);
  });

  it('keeps a "__proto__" key a plain key', () => {
    const input = JSON.parse(`{"__proto__": {"polluted": "${SECRET}"}}`) as Record<string, unknown>;
    const out = redact(input, 's0') as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":"***"}}');
  });

  it(`refuses a value nested deeper than ${MAX_REDACTED_DEPTH} levels rather than pass it unchecked`, () => {
    let deep: unknown = SECRET;
    for (let i = 0; i < MAX_REDACTED_DEPTH + 5; i++) deep = [deep];
    assert.throws(
      () => redact({ structuredContent: deep }, 's0'),
      (error: unknown) => isBerryError(error) && error.code === 'MCP_PROTOCOL_ERROR' && /nested more than 1000 levels/.test(error.message),
    );
  });

  it('is a no-op without secrets worth masking', () => {
    const none = createValueRedactor(slots(['true'], []));
    const value = { text: 'true' };
    assert.equal(none(value, 's0'), value);
  });
});
