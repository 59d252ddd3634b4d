/**
 * Reads the imports of src/'s TypeScript files with the TypeScript parser, for
 * test/architecture.test.ts: static imports, `export … from`, dynamic `import()`, type imports.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** The importing file, relative to the repository (src/…). */
  readonly from: string;
  /** The specifier as written. */
  readonly specifier: string;
  /** The imported file relative to the repository, when the specifier is relative; else undefined (a package). */
  readonly to: string | undefined;
  readonly line: number;
  /** type: erased at compile time (`import type`, `export type … from`, `import('…').T` in a type). */
  readonly kind: 'static' | 'dynamic' | 'type';
}

/** Every .ts file under `dir`, relative to `root`, sorted. */
export function tsFilesUnder(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) found.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(join(root, dir));
  return found.sort();
}

/** The imports of one file (`file` relative to `root`). */
export function importsOf(root: string, file: string): ImportEdge[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (literal: ts.Node, kind: ImportEdge['kind']): void => {
    if (!ts.isStringLiteralLike(literal)) return;
    const specifier = literal.text;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    edges.push({ from: file, specifier, to: resolveSpecifier(root, file, specifier), line, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || onlyTypeNames(clause));
      add(node.moduleSpecifier, typeOnly ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier, typeOnly ? 'type' : 'static');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      add(node.arguments[0], 'dynamic');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, 'type');
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly ? 'type' : 'static');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** `import { type A, type B } from …` imports types only, like `import type`. */
function onlyTypeNames(clause: ts.ImportClause): boolean {
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/** The file a relative specifier names (NodeNext: `./x.js` is `./x.ts`); undefined for a package. */
function resolveSpecifier(root: string, file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(file), specifier);
  const stem = base.replace(/\.(js|ts)$/, '');
  const candidates = [`${stem}.ts`, `${stem}.d.ts`, join(base, 'index.ts'), base];
  const hit = candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? `${stem}.ts`;
  return relative(root, hit).split(sep).join('/');
}
