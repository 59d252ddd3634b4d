// The gate for what servers say (src/bindings/server-text): its masks, caps and shape checks, on values
// (the fixture-server attacks are in test/adversarial/server-text.test.ts).
import assert from 'node:assert/strict';
import type { ServerSlot } from '../../src/config/index.js';
import { BerryError, isBerryError } from '../../src/common/errors.js';
import { clip, maskWithin } from '../../src/bindings/server-text/bound.js';
import { followingGate, gateOf, OPEN_GATE, type ServerTextGate } from '../../src/bindings/server-text/gate.js';
import { MAX_ELICITATION_FIELDS, MAX_LOG_LINE_CHARS, MAX_PROGRESS_MESSAGE_CHARS, MAX_QUESTIONS_PER_ROUND } from '../../src/bindings/server-text/limits.js';

const SECRET = 'Zt8-qLm2-Vx7k-Np4w';
const slots = (...secrets: string[][]): ServerSlot[] =>
  secrets.map((list, i) => ({ name: `s${i}`, status: 'ok', config: { secrets: list } }) as unknown as ServerSlot);
const gate = gateOf(slots([SECRET], ['short']));

describe('mcp/server-text: the gate for what servers say', () => {
  describe('progress', () => {
    it('hands on a well-formed notification, its message masked', () => {
      assert.deepEqual(gate.progress('s', 't', { progress: 1, total: 4, message: `key ${SECRET}` }), {
        server: 's',
        tool: 't',
        progress: 1,
        total: 4,
        message: 'key ***',
      });
      assert.deepEqual(gate.progress('s', 't', { progress: 0 }), { server: 's', tool: 't', progress: 0 });
    });

    it('drops one whose progress is not a finite number >= 0, and leaves out a bad total or message', () => {
      for (const progress of ['lots', -1, Number.NaN, Number.POSITIVE_INFINITY, null, undefined, '3']) {
        assert.equal(gate.progress('s', 't', { progress }), undefined, String(progress));
      }
      for (const raw of [null, 'x', 5, []]) assert.equal(gate.progress('s', 't', raw), undefined);
      assert.deepEqual(gate.progress('s', 't', { progress: 2, total: Number.POSITIVE_INFINITY, message: 7 }), { server: 's', tool: 't', progress: 2 });
      assert.deepEqual(gate.progress('s', 't', { progress: 2, total: -3 }), { server: 's', tool: 't', progress: 2 });
    });

    it('cuts a long message after masking, and masks a secret split across two messages at both ends', () => {
      const long = gate.progress('s', 't', { progress: 1, message: 'x'.repeat(2_000_000) });
      assert.ok(long!.message!.length <= MAX_PROGRESS_MESSAGE_CHARS + 40, `${long!.message!.length}`);
      assert.match(long!.message!, /… \(1999000 more characters\)$/);
      const half = SECRET.length / 2;
      assert.equal(gate.progress('s', 't', { progress: 1, message: `first ${SECRET.slice(0, half)}` })!.message, 'first ***');
      assert.equal(gate.progress('s', 't', { progress: 2, message: `${SECRET.slice(half)} then` })!.message, '*** then');
    });
  });

  describe('bounds', () => {
    it('never cuts a text inside a secret: the mask runs first', () => {
      const text = `${'a'.repeat(990)}${SECRET}${'b'.repeat(100)}`;
      const out = maskWithin(text, 1000, (t) => gate.piece(t));
      assert.ok(!out.includes(SECRET.slice(0, 6)), out.slice(980));
      assert.equal(out.slice(990, 993), '***');
    });

    it('masks all of a huge text when masking shrank its head (many long secrets in it)', () => {
      const head = SECRET.repeat(4000);
      const text = `${head}${SECRET.slice(0, 9)}${'c'.repeat(100)}`;
      const out = maskWithin(text, 1000, (t) => gate.piece(t));
      assert.ok(!/Zt8-qL|qLm2-V|Vx7k-N/.test(out), out.slice(0, 200));
    });

    it('cuts between characters, never inside a surrogate pair', () => {
      assert.equal(clip('ab😀cd', 3), 'ab… (4 more characters)');
    });

    it('cuts each log line, masked first', () => {
      const line = gate.logLine(`${'y'.repeat(20_000)} ${SECRET}\nbrief ${SECRET}\n`);
      const lines = line.split('\n');
      assert.ok(lines[0]!.length <= MAX_LOG_LINE_CHARS + 40);
      assert.equal(lines[1], 'brief ***');
      assert.ok(!line.includes(SECRET));
    });
  });

  describe('elicitations', () => {
    const form = (properties: Record<string, unknown>, message = 'Confirm?') => ({ mode: 'form', message, requestedSchema: { type: 'object', properties } });

    it('masks every string and key: message, titles, descriptions, option labels, defaults', () => {
      const shown = gate.elicitation(
        form(
          {
            [SECRET]: { type: 'string' },
            key: { type: 'string', title: `Key ${SECRET}`, description: encodeURIComponent(SECRET), default: SECRET },
            pick: { type: 'string', oneOf: [{ const: 'a', title: SECRET }] },
          },
          `Confirm the deploy key ${SECRET}`,
        ),
      );
      assert.ok('params' in shown);
      assert.ok(!JSON.stringify(shown.params).includes('Zt8'), JSON.stringify(shown.params));
      assert.equal(shown.params.message, 'Confirm the deploy key ***');
    });

    it('declines one past a structural cap or not shaped as an elicitation', () => {
      const wide = Object.fromEntries(Array.from({ length: MAX_ELICITATION_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'string' }]));
      const refusals = [
        form(wide),
        form({ pick: { type: 'string', enum: Array.from({ length: 101 }, (_, i) => `o${i}`) } }),
        form({ deep: { type: 'string', x: { a: { b: { c: { d: { e: { f: { g: {} } } } } } } } } }),
        form({ ['k'.repeat(1001)]: { type: 'string' } }),
        { mode: 'url', message: 'Sign in', url: `https://example.com/?q=${'x'.repeat(9000)}` },
        { mode: 'url', message: 'Sign in' },
        { mode: 'other', message: 'x' },
        { message: 7, requestedSchema: { type: 'object', properties: {} } },
        { message: 'no schema' },
        'not an object',
      ];
      for (const params of refusals) assert.ok('refused' in gate.elicitation(params), JSON.stringify(params).slice(0, 100));
    });

    it('cuts a long message and long texts, keeps a URL whole, keeps "__proto__" a plain key', () => {
      const shown = gate.elicitation(form({ note: { type: 'string', description: 'd'.repeat(5000) }, ['__proto__']: { type: 'string' } }, 'm'.repeat(100_000)));
      assert.ok('params' in shown);
      assert.ok(shown.params.message.length <= 4040);
      const properties = (shown.params as { requestedSchema: { properties: Record<string, { description?: string }> } }).requestedSchema.properties;
      assert.ok(properties['note']!.description!.length <= 1040);
      assert.ok(Object.hasOwn(properties, '__proto__'));
      const url = gate.elicitation({ mode: 'url', message: 'Sign in', url: `https://example.com/a?k=${SECRET}`, elicitationId: 'e1' });
      assert.deepEqual(url, { params: { mode: 'url', message: 'Sign in', url: 'https://example.com/a?k=***', elicitationId: 'e1' } });
    });
  });

  describe('input rounds and errors', () => {
    it('refuses a round of more than MAX_QUESTIONS_PER_ROUND questions', () => {
      gate.questions('s', MAX_QUESTIONS_PER_ROUND);
      assert.throws(
        () => gate.questions('s', 2400),
        (error: unknown) => isBerryError(error) && error.code === 'MCP_INPUT_UNSUPPORTED' && /2,400 questions/.test(error.message),
      );
    });

    it('masks an error message as a value; leaves errors alone when the config has nothing to mask', () => {
      const refused = new BerryError('MCP_INVALID_ARGUMENT', `arguments.mode: expected one of "${SECRET}", got "x"`);
      assert.equal(gate.error(refused, 's'), refused);
      assert.equal(refused.message, 'arguments.mode: expected one of "***", got "x"');
      const open = new BerryError('MCP_INVALID_ARGUMENT', `expected ${SECRET}`);
      assert.equal((OPEN_GATE.error(open, 's') as Error).message, `expected ${SECRET}`);
    });
  });

  describe('which secrets', () => {
    it('is built once per config; the open gate masks nothing', () => {
      const servers = slots([SECRET]);
      assert.equal(gateOf(servers), gateOf(servers));
      assert.equal(OPEN_GATE.whole(`a ${SECRET}`), `a ${SECRET}`);
      assert.equal(OPEN_GATE.progress('s', 't', { progress: 'x' }), undefined);
    });

    it("a connection's gate follows the latest config, then masks the connection's own tokens", () => {
      let latest: ServerTextGate = gateOf(slots(['first-secret-1234']));
      const following = followingGate(
        () => latest,
        (text) => text.replaceAll('oauth-token-5678', '[token]'),
      );
      assert.equal(following.piece('first-secret-1234 and added-secret-999 oauth-token-5678'), '*** and added-secret-999 [token]');
      latest = gateOf(slots(['first-secret-1234'], ['added-secret-999']));
      assert.equal(following.whole('first-secret-1234 and added-secret-999 oauth-token-5678'), '*** and *** [token]');
    });
  });
});
