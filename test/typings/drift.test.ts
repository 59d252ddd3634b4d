// One source of truth for the names: every type src/bindings/contract.ts exports must exist in
// the BerryMcp namespace of typings/berry-mcp.d.ts with the same shape (assignable both ways,
// same property names), and BerryMcp.ErrorCode must be exactly src/common/errors.ts's BerryErrorCode.
// The check is a generated TypeScript file compiled in memory with the compiler API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../support/paths.js';

const CONTRACT = path.join(PROJECT_ROOT, 'src', 'bindings', 'contract.ts');
const STATIC_TYPINGS = path.join(PROJECT_ROOT, 'typings', 'berry-mcp.d.ts');
/** Never written to disk: served by the compiler host below. */
const CHECK_FILE = path.join(PROJECT_ROOT, 'test', 'typings', '__drift_check__.ts');

/**
 * Contract types a script never sees, so the script API leaves them out on purpose: add a name
 * here only with the reason.
 */
const HOST_ONLY: ReadonlyMap<string, string> = new Map([
  ['OperationOptions', 'host-side call options (an AbortSignal and a progress callback); scripts pass none'],
]);

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
};

/** The names of the types contract.ts exports. */
function contractExports(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(CONTRACT);
  assert.ok(source, `${CONTRACT} is not in the program`);
  const module = checker.getSymbolAtLocation(source);
  assert.ok(module, 'contract.ts is not a module');
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => (symbol.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Alias)) !== 0)
    .map((symbol) => symbol.name)
    .sort();
}

/** The check file: per name, one line per direction plus one for the property names. */
function checkSource(names: readonly string[]): { text: string; lineOwner: Map<number, string> } {
  const lines = [
    `/// <reference path=${JSON.stringify(STATIC_TYPINGS)} />`,
    `import type * as Contract from '../../src/bindings/contract.js';`,
    `import type { BerryErrorCode } from '../../src/common/errors.js';`,
    // Declared property names, of every union member; index signatures are left to the
    // assignability checks (the script API drops CallResult's so a misspelt property is an error).
    'type KeysOf<T> = T extends unknown ? keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] } : never;',
    'type SameKeys<A, B> = [Exclude<KeysOf<A>, KeysOf<B>> | Exclude<KeysOf<B>, KeysOf<A>>] extends [never] ? true : { onlyIn: [Exclude<KeysOf<A>, KeysOf<B>>, Exclude<KeysOf<B>, KeysOf<A>>] };',
    'declare function same<T extends true>(): void;',
  ];
  const lineOwner = new Map<number, string>();
  const add = (owner: string, line: string): void => {
    lines.push(line);
    lineOwner.set(lines.length, owner);
  };
  for (const name of names) {
    add(name, `export const toScript_${name}: BerryMcp.${name} = null! as Contract.${name};`);
    add(name, `export const toContract_${name}: Contract.${name} = null! as BerryMcp.${name};`);
    add(name, `same<SameKeys<Contract.${name}, BerryMcp.${name}>>();`);
  }
  add('ErrorCode', 'export const toScript_ErrorCode: BerryMcp.ErrorCode = null! as BerryErrorCode;');
  add('ErrorCode', 'export const toContract_ErrorCode: BerryErrorCode = null! as BerryMcp.ErrorCode;');
  return { text: `${lines.join('\n')}\n`, lineOwner };
}

/** Compiles the check with `typings` as the script API's text; returns "Name: message" problems. */
function drift(names: readonly string[], typings: string, oldProgram?: ts.Program): { problems: string[]; program: ts.Program } {
  const { text, lineOwner } = checkSource(names);
  const host = ts.createCompilerHost(OPTIONS);
  const virtual = new Map([
    [CHECK_FILE, text],
    [STATIC_TYPINGS, typings],
  ]);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const content = virtual.get(path.resolve(fileName));
    return content === undefined
      ? getSourceFile(fileName, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(fileName, content, languageVersion, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(path.resolve(fileName)) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(path.resolve(fileName)) ?? readFile(fileName);

  const program = ts.createProgram({ rootNames: [CHECK_FILE, CONTRACT], options: OPTIONS, host, ...(oldProgram ? { oldProgram } : {}) });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    if (d.file === undefined || d.start === undefined) return `(global): ${message}`;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const owner = path.resolve(d.file.fileName) === CHECK_FILE ? (lineOwner.get(line) ?? '(check file)') : path.relative(PROJECT_ROOT, d.file.fileName);
    return `${owner}: TS${d.code} ${message}`;
  });
  return { problems, program };
}

describe('typings: the script API stays in step with the contract', function () {
  this.timeout(30_000);

  let names: string[];
  let program: ts.Program;
  const typings = fs.readFileSync(STATIC_TYPINGS, 'utf8');

  before(() => {
    const result = drift([], typings);
    program = result.program;
    names = contractExports(program).filter((name) => !HOST_ONLY.has(name));
  });

  it('finds the contract types (and the host-only ones it leaves out still exist)', () => {
    for (const name of [
      'ListRequest',
      'ListResult',
      'ServerStatus',
      'ToolSummary',
      'DescribeRequest',
      'DescribeResult',
      'ToolDescription',
      'ServerDescription',
      'CallRequest',
      'CallResult',
    ]) {
      assert.ok(names.includes(name), `contract.ts no longer exports ${name}`);
    }
    const all = contractExports(program);
    for (const name of HOST_ONLY.keys()) assert.ok(all.includes(name), `HOST_ONLY lists ${name}, which contract.ts does not export`);
  });

  it('declares every contract type in BerryMcp with the same shape, and ErrorCode as BerryErrorCode', () => {
    const { problems } = drift(names, typings, program);
    assert.deepEqual(problems, []);
  });

  it('notices drift: a changed property type, a missing optional property, a missing name, a missing code', () => {
    const drifted = typings
      .replace('readonly configPath: string;', 'readonly configPath: number;')
      .replace('readonly protocolVersion?: string;', '')
      .replace(/interface ProgressEvent \{/, 'interface ProgressEventRenamed {')
      .replace("| 'SCRIPT_SETUP_FAILED'", '');
    assert.notEqual(drifted, typings);
    const { problems } = drift(names, drifted, program);
    const owners = new Set(problems.map((problem) => problem.split(':')[0]));
    // Types that contain the drifted ones (ServerStatus holds a ServerErrorInfo...) fail too.
    for (const name of ['ErrorCode', 'ListResult', 'ProgressEvent', 'ServerDescription', 'ServerErrorInfo']) {
      assert.ok(owners.has(name), `${name} drifted unnoticed; problems: ${problems.join('\n')}`);
    }
    assert.ok(!owners.has('CallResult') && !owners.has('CallRequest'), `untouched types reported: ${problems.join('\n')}`);
  });
});
