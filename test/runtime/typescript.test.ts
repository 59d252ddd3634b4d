import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { runScript, type HostFunction, type RunRecord, type RunScriptOptions } from '../../src/runtime/index.js';
import { asciiTwin, MAX_TYPESCRIPT_CHARS, stripTypes } from '../../src/runtime/typescript/strip-types.js';
import { PROJECT_ROOT } from '../support/paths.js';

const echo: HostFunction = async (args) => args;
const run = (code: string, options: Partial<RunScriptOptions> = {}): Promise<RunRecord> =>
  runScript(code, { functions: { echo }, timeoutMs: 10_000, filename: 'job.ts', ...options });

/** Where `marker` is in `code`: 1-based line and column, lines split as V8 splits them. */
function whereIs(code: string, marker: string): { line: number; column: number } {
  const at = code.indexOf(marker);
  assert.ok(at >= 0, `${marker} is not in the script`);
  const before = code.slice(0, at).split(/\r\n|[\n\r\u2028\u2029]/);
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

describe('runScript: TypeScript', () => {
  it('runs annotations, interfaces, type aliases, as, satisfies, generics, non-null, with top-level await and return', async () => {
    const code = [
      'interface Item { readonly name: string; size?: number }',
      'type Sized<T extends Item> = T & { size: number };',
      'function biggest<T extends Item>(items: readonly T[]): Sized<T> | undefined {',
      '  return [...items].sort((a, b) => (b.size ?? 0) - (a.size ?? 0))[0] as Sized<T> | undefined;',
      '}',
      'const got = (await tools.echo({ items: [{ name: "a", size: 1 }, { name: "b", size: 3 }] })) as { items: Item[] };',
      'const config = { limit: 2 } satisfies Record<string, number>;',
      'const top = biggest<Item>(got.items)!;',
      'let total: number = 0;',
      'for (const item of got.items as Array<Item>) total += item.size!;',
      'const pair = <A, B>(a: A, b: B): [A, B] => [a, b];',
      'abstract class Shape { abstract area(): number; describe(this: Shape): string { return `area ${this.area()}`; } }',
      'class Square extends Shape { private readonly side: number; constructor(side: number) { super(); this.side = side; } area(): number { return this.side ** 2; } }',
      'declare const nothing: never;',
      'namespace OnlyTypes { export type Id = string }',
      'const id: OnlyTypes.Id = "x";',
      'return pair(top.name, { total, limit: config.limit, square: new Square(3).describe(), id });',
    ].join('\n');
    const record = await run(code);
    assert.deepEqual(record.error, undefined);
    assert.deepEqual(record.result, ['b', { total: 4, limit: 2, square: 'area 9', id: 'x' }]);
  });

  it("keeps a throw's line and column, on line 1 and after multi-line annotations", async () => {
    const first = 'const a: Record<string, number> = {}; const b: any = null; b.boom;';
    const record = await run(first);
    assert.deepEqual({ line: record.error?.line, column: record.error?.column }, whereIs(first, 'boom'));
    assert.equal(record.error?.stack, `at job.ts:1:${whereIs(first, 'boom').column}`);

    const later = [
      'type Deep = {',
      '  a: {',
      '    b: Array<{ c: number }>;',
      '  };',
      '};',
      'const value: Deep = { a: { b: [] } } as unknown as Deep;',
      'function pick(',
      '  deep: Deep,',
      '  index: number,',
      '): number {',
      '  return deep.a.b[index]!.c;',
      '}',
      'return pick(value, 0);',
    ].join('\n');
    const thrown = await run(later);
    assert.equal(thrown.error?.name, 'TypeError');
    assert.deepEqual({ line: thrown.error?.line, column: thrown.error?.column }, whereIs(later, 'c;'));
    assert.match(thrown.error?.stack ?? '', /^at pick \(job\.ts:11:\d+\)\nat job\.ts:13:8$/);
  });

  it('keeps positions with tabs, wide and combining characters, surrogate pairs, CRLF and lone CR line breaks', async () => {
    const code = 'const s: string = "中文 é😀";\tconst t: "x" = "x";\r\nconst u: number = 1;\rconst v: any = null;\u2028v.here;';
    const record = await run(code);
    assert.deepEqual({ line: record.error?.line, column: record.error?.column }, whereIs(code, 'here'));
    const sameLine = 'const s: string = "中\t😀";\tconst v: { a: 1 } | null = null; v!.here;';
    const onLineOne = await run(sameLine);
    assert.deepEqual({ line: onLineOne.error?.line, column: onLineOne.error?.column }, whereIs(sameLine, 'here'));
  });

  it('reports a syntax error in TypeScript where it is, on line 1 and later', async () => {
    const first = 'const a: number = 1; let b = ;';
    const one = await run(first);
    assert.equal(one.error?.name, 'SyntaxError');
    assert.equal(one.error?.code, 'SCRIPT_ERROR');
    assert.deepEqual({ line: one.error?.line, column: one.error?.column }, { line: 1, column: first.lastIndexOf(';') + 1 });
    const later = 'const a: Array<number> = [];\n\n\tconst é: string = "é"; let b = ;';
    const three = await run(later);
    assert.deepEqual({ line: three.error?.line, column: three.error?.column }, { line: 3, column: later.split('\n')[2]!.lastIndexOf(';') + 1 });
    // V8 stops at the first annotation (and says "Missing initializer" at the name): amaro read further, so its error is the one.
    const issueExample = await run('const r: any = ;');
    assert.deepEqual(
      { message: issueExample.error?.message, line: issueExample.error?.line, column: issueExample.error?.column },
      { message: 'Expression expected', line: 1, column: 16 },
    );
    const open = await run('const a: number = 1;\nif (a) {\n  text(a);\n');
    assert.equal(open.error?.message, 'unexpected end of script: `{` opened at line 2 is not closed');
  });

  it('leaves a JavaScript syntax error as V8 reports it', async () => {
    for (const [code, message] of [
      ['let a = 1;\nlet b = ;', "Unexpected token ';'"],
      ['const x = {;', "Unexpected token ';'"],
      ['return 1 +', "unexpected end of script: Unexpected token '}'"],
      ['let let = 1', 'let is disallowed as a lexically bound name'],
      ['text("a" "b")', 'missing ) after argument list'],
    ] as const) {
      const record = await run(code, { filename: 'job.js' });
      assert.equal(record.error?.message, message, code);
      assert.equal(record.error?.code, 'SCRIPT_ERROR', code);
      assert.equal(record.error?.name, 'SyntaxError', code);
    }
  });

  it('names what needs code generation, where it is, and what to write instead', async () => {
    const cases: [string, RegExp, number, number][] = [
      ['const a: number = 1;\n\nenum Color { Red }', /^TypeScript enum at line 3:1 needs code generation; use a const object/, 3, 1],
      ['namespace N { export const a = 1 }', /^TypeScript namespace with values at line 1:1 /, 1, 1],
      ['module M { export const a = 1 }', /^TypeScript namespace with values at line 1:1 /, 1, 1],
      ['class P {\n  constructor(private x: number) {}\n}', /^TypeScript parameter property at line 2:23 .*this\.x = x/, 2, 23],
      ['const v = <number>JSON.parse("1");', /^TypeScript type assertion `<T>value` at line 1:11 .*write `value as T`/, 1, 11],
      ['const n: number = 1;\n  @sealed class A {}', /^decorator at line 2:3 is not supported/, 2, 3],
    ];
    for (const [code, message, line, column] of cases) {
      const record = await run(code);
      assert.equal(record.error?.code, 'SCRIPT_TYPESCRIPT_UNSUPPORTED', code);
      assert.match(record.error?.message ?? '', message, code);
      assert.deepEqual({ line: record.error?.line, column: record.error?.column }, { line, column }, code);
      assert.equal(record.calls, 0);
    }
  });

  it('never loads the type stripper for JavaScript', () => {
    const script = `
      const { runScript } = await import(${JSON.stringify(`${PROJECT_ROOT}/dist/src/runtime/index.js`)});
      const { createRequire } = await import('node:module');
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((key) => key.includes('/amaro/'));
      const js = await runScript('const a = 1; return a + 1', { functions: {} });
      const before = loaded();
      const ts = await runScript('const a: number = 1; return a + 1', { functions: {} });
      process.stdout.write(JSON.stringify([js.result, before, ts.result, loaded()]));`;
    const out = execFileSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), [2, false, 2, true]);
  });

  it(`strips at most ${MAX_TYPESCRIPT_CHARS} characters: a larger script runs as JavaScript, and says so when it is not`, async () => {
    const filler = `// ${'x'.repeat(MAX_TYPESCRIPT_CHARS)}\n`;
    assert.equal((await run(`${filler}return 1`)).result, 1);
    const typed = await run(`${filler}let a: number = 1;`);
    assert.equal(typed.error?.code, 'SCRIPT_ERROR');
    assert.match(typed.error?.message ?? '', /^Unexpected token ':' \(TypeScript is stripped from scripts of at most 1048576 characters; this one has \d+\)$/);
    assert.equal(typed.error?.line, 2);
    const stripped = stripTypes(`${filler}const a: number = 1;`);
    assert.equal(stripped.kind, 'unsupported');
  });
});

describe('stripTypes', () => {
  it('blanks types and keeps every other character where it was', () => {
    const code = 'const s: "é😀" = "é😀";\r\nlet n = f<string>(x as any)!;';
    const stripped = stripTypes(code);
    assert.equal(stripped.kind, 'stripped');
    if (stripped.kind !== 'stripped') return;
    assert.equal(stripped.code, `const s${' '.repeat(8)}= "é😀";\r\nlet n = f        (x       ) ;`);
  });

  it('makes an ASCII twin of the same length, lines where V8 has them', () => {
    assert.equal(asciiTwin('plain\ncode'), 'plain\ncode');
    const twin = asciiTwin('a\tb\r\nc\rd\u2028e\u00a0f中😀\u0301');
    assert.equal(twin, 'a b \nc\nd\ne f____');
    assert.equal(twin.length, 'a\tb\r\nc\rd\u2028e\u00a0f中😀\u0301'.length);
  });
});
