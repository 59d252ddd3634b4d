/**
 * The `tools.<name>(…)` calls of a parsed script, where `tools` is surely the sandbox's global:
 * not inside the scope of a declaration that shadows it (a parameter, `const tools`, a catch
 * binding…), not inside `with`, and not in a script that calls `eval` (which could declare one).
 * Calls through an alias (`const t = tools`), a destructured function or a computed name are not
 * found: the check only judges what it can read for sure. The walk is iterative (no recursion on
 * a deeply nested script) and stops at `maxNodes`.
 */
import type { CallExpression, Node, SourceFile } from 'typescript';
import type { TypeScript } from './load-typescript.js';
import { staticKey, unwrap } from './literal-value.js';

export interface ScriptCall {
  readonly call: CallExpression;
  /** `mcp_call`, as written. */
  readonly fn: string;
  readonly fnNode: Node;
  /** `tools.x?.()`: a function that may be missing is asked for on purpose. */
  readonly optional: boolean;
  /** Inside a `try` block, or its promise caught (`.catch`, `.then(ok, failed)`, `Promise.allSettled`): a failure the script handles. */
  readonly handled: boolean;
}

export interface FoundCalls {
  readonly calls: readonly ScriptCall[];
  /** The walk stopped at maxNodes: what is past it was not looked at. */
  readonly truncated: boolean;
}

export function findCalls(ts: TypeScript, file: SourceFile, maxNodes: number): FoundCalls | undefined {
  const shadows: Node[] = [];
  const candidates: CallExpression[] = [];
  const stack: Node[] = [file];
  let visited = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (++visited > maxNodes) return { calls: collect(ts, candidates, shadows), truncated: true };
    if (ts.isIdentifier(node) && node.text === 'eval') return undefined;
    const scope = shadowScope(ts, node);
    if (scope !== undefined) shadows.push(scope);
    if (ts.isWithStatement(node)) shadows.push(node.statement);
    if (ts.isCallExpression(node) && toolsMember(ts, node.expression) !== undefined) candidates.push(node);
    const children: Node[] = [];
    ts.forEachChild(node, (child) => {
      children.push(child);
    });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { calls: collect(ts, candidates, shadows), truncated: false };
}

function collect(ts: TypeScript, candidates: readonly CallExpression[], shadows: readonly Node[]): ScriptCall[] {
  const calls: ScriptCall[] = [];
  for (const call of candidates) {
    if (shadows.some((scope) => scope.pos <= call.pos && call.end <= scope.end)) continue;
    const member = toolsMember(ts, call.expression)!;
    calls.push({ call, fn: member.name, fnNode: member.node, optional: call.questionDotToken !== undefined, handled: handled(ts, call) });
  }
  return calls;
}

/** `tools.name`, `tools?.name`, `tools['name']`, in parentheses or not: the name and where it is written. */
function toolsMember(ts: TypeScript, callee: Node): { name: string; node: Node } | undefined {
  const target = unwrap(ts, callee);
  if (ts.isPropertyAccessExpression(target)) {
    if (!isToolsIdentifier(ts, target.expression) || !ts.isIdentifier(target.name)) return undefined;
    return { name: target.name.text, node: target.name };
  }
  if (ts.isElementAccessExpression(target) && isToolsIdentifier(ts, target.expression)) {
    const key = unwrap(ts, target.argumentExpression);
    if (ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key)) return { name: key.text, node: key };
  }
  return undefined;
}

function isToolsIdentifier(ts: TypeScript, node: Node): boolean {
  const inner = unwrap(ts, node);
  return ts.isIdentifier(inner) && inner.text === 'tools';
}

/** The scope in which `node` declares a binding named `tools`, if it does. */
function shadowScope(ts: TypeScript, node: Node): Node | undefined {
  if (ts.isVariableDeclaration(node) && bindsTools(ts, node.name)) {
    const list = node.parent;
    const blockScoped = ts.isVariableDeclarationList(list) && (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using)) !== 0;
    return blockScoped ? blockOf(ts, list) : functionOf(ts, node);
  }
  if (ts.isParameter(node) && bindsTools(ts, node.name)) return node.parent;
  if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name?.text === 'tools') return blockOf(ts, node.parent);
  if ((ts.isFunctionExpression(node) || ts.isClassExpression(node)) && node.name?.text === 'tools') return node;
  if (ts.isCatchClause(node) && node.variableDeclaration !== undefined && bindsTools(ts, node.variableDeclaration.name)) return node;
  if ((ts.isImportClause(node) || ts.isImportSpecifier(node) || ts.isNamespaceImport(node)) && node.name?.text === 'tools') return node.getSourceFile();
  return undefined;
}

function bindsTools(ts: TypeScript, name: Node): boolean {
  if (ts.isIdentifier(name)) return name.text === 'tools';
  if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name)) {
    return name.elements.some((element) => ts.isBindingElement(element) && bindsTools(ts, element.name));
  }
  return false;
}

/** The nearest block-like scope (a block, a `for` head, a case block, the file). */
function blockOf(ts: TypeScript, start: Node): Node {
  let node: Node | undefined = start;
  while (
    node !== undefined &&
    !(ts.isBlock(node) || ts.isSourceFile(node) || ts.isCaseBlock(node) || ts.isForStatement(node) || ts.isForInStatement(node) || ts.isForOfStatement(node))
  ) {
    if (ts.isFunctionLike(node)) return node;
    node = node.parent;
  }
  return node ?? start.getSourceFile();
}

/** The nearest function (a `var` belongs to it), or the file. */
function functionOf(ts: TypeScript, start: Node): Node {
  let node: Node | undefined = start.parent;
  while (node !== undefined && !ts.isFunctionLike(node) && !ts.isSourceFile(node)) node = node.parent;
  return node ?? start.getSourceFile();
}

/** The call's failure is handled by the script: a `try` around it, or its promise caught. */
function handled(ts: TypeScript, call: CallExpression): boolean {
  let child: Node = call;
  for (let node = call.parent; node !== undefined && !ts.isSourceFile(node); child = node, node = node.parent) {
    if (ts.isTryStatement(node) && node.tryBlock === child) return true;
    if (ts.isPropertyAccessExpression(node) && node.expression === child) {
      const name = node.name.text;
      const outer = node.parent;
      if (name === 'catch' || (name === 'then' && ts.isCallExpression(outer) && outer.arguments.length >= 2)) return true;
    }
    if (ts.isCallExpression(node) && node.expression !== child) {
      const callee = unwrap(ts, node.expression);
      const key = ts.isPropertyAccessExpression(callee) ? staticKey(ts, callee.name) : undefined;
      if (key === 'allSettled' || key === 'any') return true;
    }
  }
  return false;
}
