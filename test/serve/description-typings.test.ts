// The `run` description writes the script API's signatures once, by hand, for a model to read;
// typings/berry-mcp.d.ts declares the same API for the compiler. This test reads every signature
// the description gives (`tools.mcp_call({ server, tool, arguments? }) → { content, … }`,
// `store(key, value)`) and checks it against the declarations, read with the TypeScript
// compiler API: the same parameter names, the same optionality, and return shapes whose names
// the declared result types have. So the two cannot drift.
import assert from 'node:assert/strict';
import path from 'node:path';
import ts from 'typescript';
import { runDescription, type DescriptionLimits } from '../../src/serve/description/description.js';
import { PROJECT_ROOT } from '../support/paths.js';

const TYPINGS = path.join(PROJECT_ROOT, 'typings', 'berry-mcp.d.ts');
const LIMITS: DescriptionLimits = { defaultTimeoutSeconds: 60, maxTimeoutSeconds: 300, memoryLimitMb: 128, outputLimitBytes: 32_768 };

/** A name in a shape or a parameter list: `name`, `name?`, `name: "literal"`, `name: { … }`, `name: [{ … }]`, `a | b`. */
interface Entry {
  readonly names: readonly string[];
  readonly optional: boolean;
  readonly shape?: Shape;
}
interface Shape {
  readonly entries: readonly Entry[];
  /** `[{ … }]`: an array of such objects. */
  readonly array: boolean;
}
interface Signature {
  readonly text: string;
  /** `tools.mcp_call` or a global such as `store`. */
  readonly name: string;
  /** `{ a, b? }`: one object argument; else positional parameter names. */
  readonly object?: Shape;
  readonly positional?: readonly Entry[];
  readonly returns?: Shape;
}

/** Reads the shape notation of the description at `text[at]` (`{` or `[`); returns it and where it ends. */
function readShape(text: string, at: number): { shape: Shape; end: number } {
  let i = at;
  const array = text[i] === '[';
  if (array) i++;
  assert.equal(text[i], '{', `a shape at ${JSON.stringify(text.slice(at, at + 40))}`);
  i++;
  const entries: Entry[] = [];
  for (;;) {
    while (text[i] === ' ' || text[i] === ',' || text[i] === '…') i++;
    if (text[i] === '}') break;
    const names: string[] = [];
    let optional = false;
    let shape: Shape | undefined;
    for (;;) {
      const name = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))?.[0];
      assert.ok(name, `a name at ${JSON.stringify(text.slice(i, i + 40))}`);
      names.push(name);
      i += name.length;
      if (text[i] === '?') {
        optional = true;
        i++;
      }
      if (!text.startsWith(' | ', i)) break;
      i += 3;
    }
    if (text.startsWith(': ', i)) {
      i += 2;
      if (text[i] === '{' || text[i] === '[') {
        const inner = readShape(text, i);
        shape = inner.shape;
        i = inner.end;
      } else {
        // A literal: `type: "text"`.
        const literal = /^"[^"]*"/.exec(text.slice(i))?.[0];
        assert.ok(literal, `a value at ${JSON.stringify(text.slice(i, i + 40))}`);
        i += literal.length;
      }
    }
    entries.push({ names, optional, ...(shape ? { shape } : {}) });
  }
  i++;
  while (text[i] === '…') i++;
  if (array) {
    assert.equal(text[i], ']', `the end of an array shape at ${JSON.stringify(text.slice(at, i + 1))}`);
    i++;
  }
  return { shape: { entries, array }, end: i };
}

/** Every signature the description gives: a call whose arguments are bare names (an example's call has values). */
function signaturesIn(description: string): Signature[] {
  const found: Signature[] = [];
  const call = /(tools\.mcp_\w+|\b(?:text|image|store|load))\(/g;
  for (let match = call.exec(description); match !== null; match = call.exec(description)) {
    const open = match.index + match[0].length;
    const close = description.indexOf(')', open);
    const inside = description.slice(open, close);
    let signature: Signature;
    if (inside.startsWith('{')) {
      if (/:/.test(inside)) continue;
      signature = { text: '', name: match[1]!, object: readShape(inside, 0).shape };
    } else {
      if (!/^[\w$]+(?:\?)?(?:, [\w$]+\??)*$/.test(inside)) continue;
      signature = { text: '', name: match[1]!, positional: inside.split(', ').map((p) => ({ names: [p.replace('?', '')], optional: p.endsWith('?') })) };
    }
    let end = close + 1;
    if (description.startsWith(' → ', end) && description[end + 3] === '{') {
      const returned = readShape(description, end + 3);
      signature = { ...signature, returns: returned.shape };
      end = returned.end;
    }
    found.push({ ...signature, text: description.slice(match.index, end) });
  }
  return found;
}

/** The typings, compiled alone: the checker and the declarations of the globals and of BerryMcp.Tools. */
function loadTypings(): { checker: ts.TypeChecker; tools: ts.Type; global: (name: string) => ts.Signature[] } {
  const program = ts.createProgram({
    rootNames: [TYPINGS],
    options: { target: ts.ScriptTarget.ES2022, lib: ['lib.es2023.d.ts'], types: [], strict: true, noEmit: true },
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(diagnostics, [], 'the typings compile');
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(TYPINGS)!;
  const globals = (name: string, meaning: ts.SymbolFlags): ts.Symbol | undefined =>
    checker.getSymbolsInScope(source.endOfFileToken, meaning).find((symbol) => symbol.name === name);
  const namespace = globals('BerryMcp', ts.SymbolFlags.Namespace)!;
  const toolsSymbol = checker.getExportsOfModule(namespace).find((symbol) => symbol.name === 'Tools')!;
  return {
    checker,
    tools: checker.getDeclaredTypeOfSymbol(toolsSymbol),
    global: (name) => {
      const symbol = globals(name, ts.SymbolFlags.Function);
      return symbol === undefined ? [] : checker.getTypeOfSymbol(symbol).getCallSignatures().slice();
    },
  };
}

/** What is wrong with `shape` as a view of `type` (names it lacks, optionality it differs in); empty when nothing. */
function shapeProblems(checker: ts.TypeChecker, shape: Shape, type: ts.Type, where: string, isParameter: boolean): string[] {
  let object = checker.getNonNullableType(type);
  if (shape.array) {
    const element = checker.isArrayType(object) || checker.isTupleType(object) ? checker.getTypeArguments(object as ts.TypeReference)[0] : undefined;
    if (element === undefined) return [`${where} is not an array in the typings`];
    object = element;
  }
  const members = object.isUnion() ? object.types : [object];
  const problems: string[] = [];
  const propertyOf = (member: ts.Type, name: string): ts.Symbol | undefined => checker.getPropertyOfType(member, name);
  for (const entry of shape.entries) {
    for (const name of entry.names) {
      const holders = members.filter((member) => propertyOf(member, name) !== undefined);
      if (holders.length === 0) {
        problems.push(`${where}.${name} is not in the typings`);
        continue;
      }
      const declaredOptional = holders.every((member) => (propertyOf(member, name)!.flags & ts.SymbolFlags.Optional) !== 0);
      // `a | b` names alternatives: each is required in its own member.
      if (entry.names.length === 1 && declaredOptional !== entry.optional) {
        problems.push(`${where}.${name} is ${declaredOptional ? 'optional' : 'required'} in the typings, ${entry.optional ? 'optional' : 'required'} here`);
      }
      if (entry.shape) {
        const types = holders.map((member) => checker.getTypeOfSymbol(propertyOf(member, name)!));
        problems.push(
          ...shapeProblems(checker, entry.shape, types.length === 1 ? types[0]! : checker.getNonNullableType(types[0]!), `${where}.${name}`, isParameter),
        );
      }
    }
  }
  if (isParameter) {
    // A parameter the typings require must be written; an optional one may be left out.
    const written = new Set(shape.entries.flatMap((entry) => entry.names));
    for (const member of members) {
      for (const property of checker.getPropertiesOfType(member)) {
        if ((property.flags & ts.SymbolFlags.Optional) === 0 && !written.has(property.name))
          problems.push(`${where}.${property.name} is required in the typings, missing here`);
      }
    }
  }
  return problems;
}

/** What is wrong with `signature` against the declared call signatures (any overload may match); empty when one matches. */
function signatureProblems(checker: ts.TypeChecker, signature: Signature, declared: readonly ts.Signature[]): string[] {
  if (declared.length === 0) return [`${signature.name} is not declared in the typings`];
  const perOverload = declared.map((candidate) => {
    const problems: string[] = [];
    const parameters = candidate.getParameters();
    if (signature.object) {
      const first = parameters[0];
      if (first === undefined) return ['takes no argument in the typings'];
      problems.push(...shapeProblems(checker, signature.object, checker.getTypeOfSymbol(first), 'argument', true));
    } else {
      const names = parameters.map((p) => p.name);
      const written = signature.positional!.map((p) => p.names[0]);
      if (JSON.stringify(names) !== JSON.stringify(written)) problems.push(`parameters are (${names.join(', ')}) in the typings`);
    }
    if (signature.returns) {
      const returned = candidate.getReturnType();
      const awaited = checker.getAwaitedType(returned) ?? returned;
      problems.push(...shapeProblems(checker, signature.returns, awaited, 'result', false));
    }
    return problems;
  });
  // The overload nearest to the description says what is wrong.
  return perOverload.reduce((best, problems) => (problems.length < best.length ? problems : best));
}

describe('serve: every signature in the run description agrees with typings/berry-mcp.d.ts', function () {
  this.timeout(30_000);
  const description = runDescription([], LIMITS);
  const signatures = signaturesIn(description);
  let typings: ReturnType<typeof loadTypings>;

  before(() => {
    typings = loadTypings();
  });

  it('finds the signatures: every tools.mcp_* function with its result, and the globals', () => {
    const names = signatures.map((s) => s.name);
    for (const name of ['mcp_search', 'mcp_list', 'mcp_describe', 'mcp_call', 'mcp_read', 'mcp_prompt']) {
      const of = signatures.filter((s) => s.name === `tools.${name}`);
      assert.ok(of.length > 0 && of.every((s) => s.returns !== undefined), `tools.${name} with its result shape: ${names.join(', ')}`);
    }
    for (const name of ['text', 'image', 'store', 'load']) assert.ok(names.includes(name), `${name}(…) in ${names.join(', ')}`);
    // The example's call has values: it is not a signature.
    assert.ok(!signatures.some((s) => s.text.includes('"docs"')));
  });

  it('agrees with the typings: parameter names and optionality, and the names of each result', () => {
    const problems = signatures.flatMap((signature) => {
      const declared = signature.name.startsWith('tools.')
        ? (typings.tools.getProperty(signature.name.slice('tools.'.length)) &&
            typings.checker.getTypeOfSymbol(typings.tools.getProperty(signature.name.slice('tools.'.length))!).getCallSignatures()) ||
          []
        : typings.global(signature.name);
      return signatureProblems(typings.checker, signature, declared).map((problem) => `${signature.text}: ${problem}`);
    });
    assert.deepEqual(problems, []);
  });

  it('notices drift: a renamed parameter, a wrong optionality, a result name the typings lack, a positional rename', () => {
    const drifted = [
      '- tools.mcp_read({ server, url }) → { contents: [{ uri, text | blob }] }',
      '- tools.mcp_prompt({ server, name, arguments }) → { messages: [{ role, content }] }',
      '- tools.mcp_call({ server, tool, arguments? }) → { content: [{ type: "text", text }…], structured?, isError? }',
      '- tools.mcp_describe({ server }) → { instructions, tools }',
      '- store(name, value)',
    ].join('\n');
    const found = signaturesIn(drifted);
    assert.equal(found.length, 5);
    for (const signature of found) {
      const declared = signature.name.startsWith('tools.')
        ? typings.checker.getTypeOfSymbol(typings.tools.getProperty(signature.name.slice('tools.'.length))!).getCallSignatures()
        : typings.global(signature.name);
      assert.notDeepEqual(signatureProblems(typings.checker, signature, declared), [], signature.text);
    }
  });
});
