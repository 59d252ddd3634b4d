// What an approval shows: every argument, sorted, long strings shortened in the middle; what
// cannot be shown in full is declined, never approved unseen.
import assert from 'node:assert/strict';
import { showApproval, MAX_SHOWN_DEPTH } from '../../src/bindings/operations/approval/approval-view.js';

const show = (args: Record<string, unknown>, max = 4000, annotations?: Record<string, unknown>) =>
  showApproval({ server: 's', tool: 't', arguments: args, ...(annotations ? { annotations } : {}) }, max);

describe('approval view', () => {
  it('shows a field put after a padded one (the old 500-character cut hid it)', () => {
    const view = show({ note: 'harmless '.repeat(100), command: 'rm -rf ~' });
    assert.ok(view.ok);
    assert.match(view.body, /"command": "rm -rf ~"/);
    assert.match(view.body, /"note": "harmless harmless.*"…\(900 chars\)…".*harmless "/);
    assert.ok(view.body.length < 400, view.body);
  });

  it('shows every key, nested ones too, in sorted order, whatever order they came in', () => {
    const a = show({ z: 1, a: { y: [true, null, { d: 'x', c: 2 }], b: 'q' } });
    const b = show({ a: { b: 'q', y: [true, null, { c: 2, d: 'x' }] }, z: 1 });
    assert.ok(a.ok && b.ok);
    assert.equal(a.body, b.body);
    assert.equal(
      a.body,
      'arguments (2):\n  "a": {"b": "q", "y": [true, null, {"c": 2, "d": "x"}]}\n  "z": 1\nannotations: none (the server does not say it only reads)',
    );
  });

  it('shows what is sent: undefined members dropped, toJSON applied', () => {
    const view = show({ gone: undefined, when: new Date(0) });
    assert.ok(view.ok);
    assert.match(view.body, /^arguments \(1\):\n {2}"when": "1970-01-01T00:00:00\.000Z"$/m);
  });

  it('shortens long keys in the middle too, and the marker cannot be faked inside a string', () => {
    const key = `${'k'.repeat(200)}tail`;
    const view = show({ [key]: 'v', fake: '"…(3 chars)…"' });
    assert.ok(view.ok);
    assert.match(view.body, /"k{60}"…\(204 chars\)…"k{56}tail": "v"/);
    assert.match(view.body, /"fake": "\\"…\(3 chars\)…\\""/);
  });

  it('escapes newlines, ANSI, C1, bidi and zero-width characters in keys, values and the tool name', () => {
    const view = showApproval({ server: 's', tool: 'ev\u001b[2Jil', arguments: { 'a\nb': 'x\u001b]8;;http://e\u0007y\u009b\u202ez\u200b\u2028' } }, 4000);
    assert.ok(view.ok);
    assert.equal(view.title, 's/ev\\u001b[2Jil');
    assert.match(view.body, /"a\\nb": "x\\u001b\]8;;http:\/\/e\\u0007y\\u009b\\u202ez\\u200b\\u2028"/);
    assert.doesNotMatch(view.body + view.title, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u200b\u2028]/);
  });

  it('never cuts a surrogate pair', () => {
    const view = show({ e: '😀'.repeat(100) });
    assert.ok(view.ok);
    assert.doesNotMatch(view.body, /\\ud83d"|"\\ude00/);
  });

  it('declines many keys, many items or deep nesting that do not fit, however short each is', () => {
    const many = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    const keys = show({ ...many, command: 'rm -rf ~' });
    assert.ok(!keys.ok);
    assert.match(keys.reason, /cannot be shown in full .*more than 4,000 characters.*declined without asking/);
    assert.ok(!show({ list: Array.from({ length: 3000 }, () => 0) }).ok);
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_SHOWN_DEPTH + 1; i++) deep = [deep];
    const nested = show({ deep });
    assert.ok(!nested.ok);
    assert.match(nested.reason, /nested deeper than 32 levels/);
    // A hundred thousand keys: refused (before they are sorted).
    assert.ok(!show(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 0])), 8000).ok);
  });

  it('counts the annotations against the limit and shows them escaped', () => {
    const view = show({ a: 1 }, 4000, { title: 'T\u001b[31m', destructiveHint: true });
    assert.ok(view.ok);
    assert.match(view.body, /annotations: \{"destructiveHint": true, "title": "T\\u001b\[31m"\}$/);
    assert.ok(!show({ a: 1 }, 200, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`h${i}`, true]))).ok);
  });
});
