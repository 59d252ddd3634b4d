import assert from 'node:assert/strict';
import { runScript, type RunRecord, type RunScriptOptions } from '../../src/runtime/index.js';

const run = (code: string, options: Partial<RunScriptOptions> = {}): Promise<RunRecord> =>
  runScript(code, { functions: {}, timeoutMs: 20_000, memoryLimitMb: 16, ...options });

/** 2^25 characters by doubling: a rope that costs nothing, longer than 16 MB could ever hold flat. */
const ROPE = 'let s = "ab"; while (s.length < 2 ** 25) s = s + s;';

describe('flattening guards (flatten-guards-source.ts): a rope the limit cannot hold is refused before it is copied', function () {
  this.timeout(60_000);

  it('refuses each flattening builtin with a RangeError the script catches, and the run goes on', async () => {
    const attempts = [
      'JSON.stringify(s)',
      's.toUpperCase()',
      's.toLowerCase()',
      's.toLocaleUpperCase()',
      's.toLocaleLowerCase()',
      's.normalize()',
      's.replaceAll("a", "b")',
      's.replace(/a/g, "b")',
      's.replace(/a/g, () => "b")',
      's.replaceAll(/a/g, "$&")',
      's.match(/a/g)',
      '[...s.matchAll(/a/g)]',
      's.split("a", 2)',
      '/(?:)/[Symbol.split](s)',
      '/a/g[Symbol.replace](s, "b")',
      '[s, "x"].join("")',
      '[s].toLocaleString()',
      'String([s, s])',
      '`${[s, 1]}`',
      'encodeURIComponent(s)',
      'escape(s)',
      'decodeURIComponent(s)',
      'JSON.parse(s)',
      'String.prototype.toUpperCase.call({ toString: () => s })',
      'String.prototype.toUpperCase.call(new String(s))',
    ];
    const code = `${ROPE} const out = [];
      for (const f of [${attempts.map((a) => `() => ${a}`).join(', ')}]) {
        try { f(); out.push('ran'); } catch (e) { out.push(e.name + ': ' + e.message.slice(0, 120)); }
      }
      return out;`;
    const record = await run(code);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const out = record.result as string[];
    assert.equal(out.length, attempts.length);
    out.forEach((line, i) => assert.match(line, /^RangeError: .*(33554432 characters|too long)/, attempts[i]));
  });

  it('text(), console, image(), a thrown message and the return value refuse the rope too, without copying it', async () => {
    const code = `${ROPE} const out = [];
      for (const f of [() => text(s), () => console.log('x', s), () => text({ s }), () => image({ type: 'image', mimeType: 'image/png', data: s })]) {
        try { f(); out.push('ran'); } catch (e) { out.push(e.name); }
      }
      return out;`;
    const record = await run(code);
    assert.deepEqual(record.result, ['RangeError', 'RangeError', 'TypeError', 'RangeError']);
    const thrown = await run(`${ROPE} throw new Error(s);`);
    assert.equal(thrown.error?.message, '[33554432 characters]… [truncated]');
    for (const value of ['s', '[s]', '{ a: { b: s } }']) {
      const returned = await run(`${ROPE} return ${value};`);
      assert.match(returned.error?.message ?? '', /^The return value is larger than 1048576 bytes as JSON/, value);
    }
  });

  it('keeps every result of working input: the same values as the builtins give', async () => {
    // Evaluated here with Node's own builtins, and in the sandbox through the guards.
    const cases = [
      '["a", 1, null, undefined, [2, [3]], { toString() { return "o"; } }].join("-")',
      '[1, 2, 3].join()',
      '[1, 2].join(undefined)',
      '[1, 2].join(null)',
      '[].join("x")',
      '[,,].join("-")',
      'Array.prototype.join.call({ length: 3, 0: "a", 2: "c" }, "+")',
      'Array.prototype.join.call("abc", ".")',
      '(() => { const a = [1, 2]; a.push(a, [a, 3]); return a.join("|"); })()',
      'String([1, [2, 3]])',
      '`${[1, 2]}`',
      '[1234.5, null, "x"].toLocaleString()',
      '"Straße ǅ".toUpperCase()',
      '"ǅ İ".toLowerCase()',
      '"e\\u0301".normalize("NFC").length',
      '"a\\ud800b".toWellFormed()',
      '"aXbX".replace(/X/g, (m, i) => i)',
      '"abc".replace(/(b)/g, "[$1]")',
      '"aaa".replaceAll("a", "$&$&")',
      '"a1b22".match(/\\d+/g)',
      '[..."a1b22".matchAll(/\\d/g)].map((m) => m.index)',
      '"a,b,,c".split(/,/)',
      '"x y".split(" ", 1)',
      'encodeURIComponent("a b/ü")',
      'decodeURIComponent("a%20b")',
      'escape("ü")',
      'JSON.stringify({ a: [1, "x"], b: undefined }, null, 2)',
      'JSON.stringify({ b: 1, a: 2 }, ["a"])',
      'JSON.stringify("x\\u0000")',
      'JSON.stringify({ toJSON() { return "j"; } })',
    ];
    const expected = cases.map((c) => new Function(`return ${c};`)());
    const record = await run(`return [${cases.join(', ')}];`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    (record.result as unknown[]).forEach((got, i) => assert.deepEqual(got, JSON.parse(JSON.stringify(expected[i])), cases[i]));
    // Half the limit is the line for copies: a flat string of a quarter of it goes through.
    const quarter = await run('const s = "x".repeat(4 * 1024 * 1024).toUpperCase(); return [s.length, JSON.stringify(s).length, [s, s].join("").length];');
    assert.deepEqual(quarter.result, [4194304, 4194306, 8388608]);
  });

  it('converts as the builtins do: a Symbol throws a TypeError where String() would describe it', async () => {
    const attempts = [
      '[Symbol("x")].join()',
      '[1].join(Symbol("x"))',
      'String.prototype.toUpperCase.call(Symbol("x"))',
      '/a/[Symbol.match](Symbol("x"))',
      'encodeURI(Symbol("x"))',
    ];
    const expected = attempts.map((a) => {
      try {
        new Function(`return ${a};`)();
        return 'ran';
      } catch (e) {
        return (e as Error).name;
      }
    });
    assert.deepEqual(expected, ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError']);
    const record = await run(`return [${attempts.map((a) => `(() => { try { ${a}; return 'ran'; } catch (e) { return e.name; } })()`).join(', ')}];`);
    assert.deepEqual(record.result, expected);
  });

  it('join reads each element once and converts it once, in order: a getter cannot show it one string and hand it another', async () => {
    const code = `${ROPE} const seen = [];
      const a = [{ toString() { seen.push('a'); return 'A'; } }, 'b'];
      let reads = 0;
      Object.defineProperty(a, 1, { get() { reads++; return reads === 1 ? 'b' : s; } });
      return [a.join('-'), seen, reads];`;
    const record = await run(code);
    assert.deepEqual(record.result, ['A-b', ['a'], 1]);
  });

  it('a script cannot unwrap a guard: replacing what the wrappers use changes nothing', async () => {
    const code = `${ROPE}
      Reflect.apply = () => 'unguarded';
      Function.prototype.apply = () => 'unguarded';
      Function.prototype.call = () => 'unguarded';
      String = function () { return 'short'; };
      Array.prototype.push = () => 0;
      const out = [];
      for (const f of [() => s.toUpperCase(), () => JSON.stringify(s), () => [s].join(''), () => s.match(/a/g), () => text(s)]) {
        try { out[out.length] = typeof f(); } catch (e) { out[out.length] = e.name; }
      }
      return out;`;
    const record = await run(code);
    assert.deepEqual(record.result, ['RangeError', 'RangeError', 'RangeError', 'RangeError', 'RangeError']);
  });
});
