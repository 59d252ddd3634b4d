import assert from 'node:assert/strict';
import type IsolatedVm from 'isolated-vm';
import { FINISH_GLOBAL } from '../../src/runtime/bootstrap/finish-source.js';
import { runScript, type RunRecord } from '../../src/runtime/index.js';
import { loadIsolatedVm } from '../../src/runtime/load-ivm.js';
import { compileError } from '../../src/runtime/run-errors.js';
import { MAX_TYPESCRIPT_CHARS } from '../../src/runtime/typescript/strip-types.js';

/**
 * Attacks on "TypeScript in, positions kept" (issue 33 §1): scripts that try to have the type
 * stripper change what JavaScript means, run code it should have removed, crash it for the runs
 * after, cost the host, or make an error point somewhere else than where the mistake is.
 */
const run = (code: string): Promise<RunRecord> => runScript(code, { functions: {}, timeoutMs: 10_000, filename: 'job.ts' });

describe('adversarial: TypeScript stripping', function () {
  this.timeout(60_000);

  it('never changes a script that is JavaScript, even where TypeScript would read it otherwise', async () => {
    // As TypeScript, `f < T > (x)` is the call f<T>(x); as JavaScript, two comparisons.
    assert.equal((await run('const f = 1, T = 2, x = 3;\nreturn f < T > (x);')).result, false);
    assert.deepEqual((await run('let a = 1, b = 2, c = 0;\nreturn [a < b > c, ((as) => as)(5)];')).result, [true, 5]);
    // Sloppy JavaScript that amaro would refuse (it parses strict): runs as before.
    assert.equal((await run('with ({ v: 7 }) { return v + 010; }')).result, 15);
    assert.equal((await run('var type = 1, as = 2, satisfies = 3, declare = 4;\nreturn type + as + satisfies + declare;')).result, 10);
  });

  it('reads every JavaScript syntax error as V8 reports it, not as amaro would', async () => {
    const ivm = await loadIsolatedVm();
    const isolate: IsolatedVm.Isolate = new ivm.Isolate({ memoryLimit: 16 });
    const v8 = (code: string): unknown => {
      try {
        isolate.compileScriptSync(`${FINISH_GLOBAL}(async () => {\n${code}\n})`, { filename: 'job.ts', lineOffset: -1 });
        return 'compiled';
      } catch (error) {
        return compileError(error, 'job.ts', code);
      }
    };
    const corpus = [
      'text("a"\n  "b")',
      'text("a" "b")',
      'const a = 1, b;\nconst c;',
      'let x = { a: 1 b: 2 };',
      'let x = { a: 1,\n  b: 2\n  c: 3 };',
      'let y = a ? b c : d;',
      'f(a b);',
      'for (let i = 0; i < 3; i++ {}',
      'if (a) { b c }',
      '1 = 2;',
      '[a, b] += 1;',
      'let let = 1;',
      'class A { constructor() {} constructor() {} }',
      'function f(a, a) { "use strict"; }',
      'return a +',
      'let s = "open',
      'let t = `open ${1}',
      '/* open',
      'x => { y:: 1 }',
      'let a = 1; let a = 2;',
      'new.target',
      'await => 1',
      'a?.b = 1;',
      'import("x").then(',
      'label: label: 1;',
      'break;',
      'let x = 08n;',
      'let r = /(/;',
      'f(...);',
      'async function g() { yield 1 }',
    ];
    try {
      for (const code of corpus) {
        const expected = v8(code);
        assert.notEqual(expected, 'compiled', code);
        const record = await run(code);
        assert.deepEqual(record.error, expected, code);
      }
    } finally {
      isolate.dispose();
    }
  });

  it('a nesting deep enough to overflow the stripper fails that run only: the next TypeScript runs', async () => {
    for (const depth of [2_000, 100_000]) {
      const started = performance.now();
      const deep = await run(`let x: ${'Array<'.repeat(depth)}number${'>'.repeat(depth)} = [];`);
      assert.equal(deep.error?.code, 'SCRIPT_TYPESCRIPT_UNSUPPORTED', JSON.stringify(deep.error));
      assert.match(deep.error?.message ?? '', /gave up on this script .*nested too deeply/);
      assert.ok(performance.now() - started < 5_000, `took ${performance.now() - started} ms`);
      const after = await run('const n: number = 41;\nreturn n + 1;');
      assert.equal(after.result, 42, JSON.stringify(after.error));
    }
  });

  it('runs nothing written in a type position, and a wrapper closed through types is refused', async () => {
    const hidden = [
      'type T = `',
      '}); text("smuggled"); (async () => {',
      '`;',
      'let v: "); text(\'smuggled\'); (" = "); text(\'smuggled\'); (" as const;',
      'interface I { m(): void; x: typeof text }',
      'declare function text(s: string): void;',
      'return typeof v;',
    ].join('\n');
    const record = await run(hidden);
    assert.equal(record.result, 'string', JSON.stringify(record.error));
    assert.deepEqual(record.outputs, []);
    const closed = await run('}) as any; text("evil"); ((): any => {');
    assert.equal(closed.ok, false);
    assert.deepEqual(closed.outputs, []);
    assert.match(closed.error?.message ?? '', /closes its own function early/);
    const afterReturn = await run('return 1 as number;\n})\n; text("evil"); ((x: any) => {');
    assert.equal(afterReturn.ok, false);
    assert.deepEqual(afterReturn.outputs, []);
  });

  it('keeps amaro from moving a position: tabs, wide, combining and surrogate characters, lone CR and U+2028 line ends', async () => {
    // amaro counts columns in display width (a tab is 4, 中 is 2, a combining mark 0): none of it may move the error.
    const line = '\t中\u0301x = "\t中😀";\tconst q: number = ;';
    for (const code of [`let ${line}`, `const a: any = 1;\r\rlet ${line}`, `const a: any = 1;\u2028let ${line}`, `const a: any = 1;\r\nlet ${line}`]) {
      const record = await run(code);
      const lines = code.split(/\r\n|[\n\r\u2028\u2029]/);
      assert.equal(record.error?.message, 'Expression expected', JSON.stringify(code));
      assert.deepEqual(
        { line: record.error?.line, column: record.error?.column },
        { line: lines.length, column: lines.at(-1)!.lastIndexOf(';') + 1 },
        JSON.stringify(code),
      );
    }
    const thrown = await run('const s: string = "\t中😀";\tconst o: any = null; o.here;');
    assert.equal(thrown.error?.column, 'const s: string = "\t中😀";\tconst o: any = null; o.'.length + 1);
  });

  it(`costs the host at most one bounded strip: ${MAX_TYPESCRIPT_CHARS} characters of TypeScript run within seconds`, async () => {
    const line = 'total = total + (f<number>(1) as number)!;\n';
    const body = line.repeat(Math.floor((MAX_TYPESCRIPT_CHARS - 200) / line.length));
    const started = performance.now();
    const record = await run(`const f = <T,>(x: T): T => x;\nlet total: number = 0;\n${body}return total;`);
    assert.equal(record.result, Math.floor((MAX_TYPESCRIPT_CHARS - 200) / line.length), JSON.stringify(record.error));
    assert.ok(performance.now() - started < 10_000, `took ${performance.now() - started} ms`);
  });
});
