/**
 * The layers of src/ hold themselves: every import of every file obeys src/layers.json, no import
 * cycle exists, and no folder is wider than a glance (docs/architecture.md). Rules are per module
 * (a folder or root file of src/, or a sub-folder of a `nested` one), so files may move inside a
 * module without touching this test or the rules.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { importsOf, tsFilesUnder, type ImportEdge } from './architecture/imports.js';

/** dist/test/architecture.test.js → the repository. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface LayerRules {
  readonly maxFilesPerFolder: number;
  readonly maxLinesPerFile: number;
  readonly nested: readonly string[];
  readonly layers: readonly { readonly name: string; readonly modules: readonly string[] }[];
  readonly sideways: readonly (readonly [string, string])[];
  readonly only: Readonly<Record<string, readonly string[]>>;
  readonly packages: Readonly<Record<string, readonly string[]>>;
}

/** `src/bindings/pool/pool.ts` → `bindings`; `src/host.ts` → `host.ts`; with `remote` nested, `src/remote/machine/x.ts` → `remote/machine`. */
function moduleOf(file: string, nested: readonly string[]): string {
  const parts = file.split('/');
  const top = parts[1] ?? file;
  return nested.includes(top) && parts.length > 3 ? `${top}/${parts[2]}` : top;
}

/** Folders of `files` holding more than `max` .ts files at their top, as "folder (N files)". */
function tooWide(files: readonly string[], max: number): string[] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const folder = file.slice(0, file.lastIndexOf('/'));
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > max).map(([folder, n]) => `${folder} (${n} files)`);
}

/** Files of `files` longer than `max` lines (as the formatter leaves them), as "file (N lines)". */
function tooLong(files: readonly string[], max: number, read: (file: string) => string): string[] {
  return files.flatMap((file) => {
    const lines = read(file).split('\n').length - 1;
    return lines > max ? [`${file} (${lines} lines)`] : [];
  });
}

/** What is wrong with one import under the rules, or undefined. */
function brokenRule(rules: LayerRules, edge: ImportEdge): string | undefined {
  const from = moduleOf(edge.from, rules.nested);
  const layerOf = new Map(rules.layers.flatMap((layer, rank) => layer.modules.map((m) => [m, { rank, name: layer.name }] as const)));
  const own = layerOf.get(from);
  if (own === undefined) return `module "${from}" is in no layer of src/layers.json: add it`;
  if (edge.to === undefined) {
    const banned = (rules.packages[from] ?? []).find((prefix) => edge.specifier.startsWith(prefix));
    return banned === undefined ? undefined : `${from} must not import the package ${banned}* (packages)`;
  }
  if (!edge.to.startsWith('src/')) return `${from} imports from outside src/`;
  const to = moduleOf(edge.to, rules.nested);
  if (to === from) return undefined;
  const only = rules.only[from];
  if (only !== undefined && !only.includes(to)) return `${from} may import only ${only.join(', ')} (only), not ${to}`;
  const target = layerOf.get(to);
  if (target === undefined) return `module "${to}" is in no layer of src/layers.json: add it`;
  if (target.rank > own.rank) return undefined;
  if (target.rank === own.rank) {
    if (rules.sideways.some(([a, b]) => a === from && b === to)) return undefined;
    return `${from} and ${to} are both in layer "${own.name}" and ${from} → ${to} is not in sideways`;
  }
  return `${from} (layer "${own.name}") may not import ${to} (layer "${target.name}", above it)`;
}

/** Every cycle's files, one cycle per strongly connected component (Tarjan), each as a closed path. */
function cyclesOf(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (to === undefined) continue;
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || next.get(node)?.has(node)) components.push(component);
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
  // One shortest path back to the start, inside the component: a cycle a reader can follow.
  return components.map((component) => {
    const members = new Set(component);
    const start = component.sort()[0]!;
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const at = queue.shift()!;
      for (const to of [...(next.get(at) ?? [])].sort()) {
        if (!members.has(to)) continue;
        if (to === start) {
          const path = [at];
          while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
          return [...path, start];
        }
        if (!previous.has(to)) {
          previous.set(to, at);
          queue.push(to);
        }
      }
    }
    return [start, start];
  });
}

function rulesOf(text: string): LayerRules {
  const parsed = JSON.parse(text) as Partial<LayerRules>;
  return {
    maxFilesPerFolder: parsed.maxFilesPerFolder ?? Number.POSITIVE_INFINITY,
    maxLinesPerFile: parsed.maxLinesPerFile ?? Number.POSITIVE_INFINITY,
    nested: parsed.nested ?? [],
    layers: parsed.layers ?? [],
    sideways: parsed.sideways ?? [],
    only: parsed.only ?? {},
    packages: parsed.packages ?? {},
  };
}

describe('architecture: the layers of src/ (src/layers.json)', () => {
  const rules = rulesOf(readFileSync(`${ROOT}src/layers.json`, 'utf8'));
  const files = tsFilesUnder(ROOT, 'src');
  const edges = files.flatMap((file) => importsOf(ROOT, file));

  it('reads the imports of every file of src/', () => {
    assert.ok(files.length > 100, `only ${files.length} files found under src/`);
    assert.ok(
      edges.some((e) => e.kind === 'dynamic'),
      'no dynamic import() found: the parser misses them',
    );
    assert.ok(
      edges.some((e) => e.kind === 'type'),
      'no type import found',
    );
  });

  it('puts every module of src/ in one layer', () => {
    const listed = rules.layers.flatMap((layer) => layer.modules);
    const twice = listed.filter((m, i) => listed.indexOf(m) !== i);
    assert.deepEqual(twice, [], `modules in more than one layer: ${twice.join(', ')}`);
    const missing = [...new Set(files.map((file) => moduleOf(file, rules.nested)))].filter((m) => !listed.includes(m));
    assert.deepEqual(missing, [], `modules of src/ in no layer of src/layers.json: ${missing.join(', ')}`);
  });

  it('has no import that breaks a layer rule', () => {
    const broken = edges.flatMap((edge) => {
      const rule = brokenRule(rules, edge);
      return rule === undefined ? [] : [`${edge.from}:${edge.line} imports '${edge.specifier}': ${rule}`];
    });
    assert.equal(broken.length, 0, `${broken.length} import(s) break src/layers.json:\n  ${broken.join('\n  ')}`);
  });

  it('has no folder with more than maxFilesPerFolder .ts files at its top', () => {
    assert.equal(rules.maxFilesPerFolder, 16);
    const wide = tooWide(files, rules.maxFilesPerFolder);
    assert.deepEqual(wide, [], `folders of src/ wider than ${rules.maxFilesPerFolder} files: group them by concern in sub-folders: ${wide.join(', ')}`);
  });

  it('has no file longer than maxLinesPerFile lines', () => {
    assert.equal(rules.maxLinesPerFile, 300);
    const long = tooLong(files, rules.maxLinesPerFile, (file) => readFileSync(`${ROOT}${file}`, 'utf8'));
    assert.deepEqual(long, [], `files of src/ longer than ${rules.maxLinesPerFile} lines: split them by concern: ${long.join(', ')}`);
  });

  it('has no import cycle (type imports and dynamic import() included)', () => {
    const cycles = cyclesOf(edges);
    assert.equal(cycles.length, 0, `${cycles.length} import cycle(s) in src/:\n  ${cycles.map((c) => c.join(' → ')).join('\n  ')}`);
  });

  describe('the checks themselves', () => {
    const edge = (from: string, to: string | undefined, specifier = to ?? ''): ImportEdge => ({ from, to, specifier, line: 1, kind: 'static' });

    it('refuses an import upward, sideways without an edge, out of `only`, and a banned package', () => {
      assert.match(
        brokenRule(rules, edge('src/remote/machine/local-machine.ts', 'src/bindings/host.ts'))!,
        /remote\/machine \(layer "machines"\) may not import bindings/,
      );
      assert.match(
        brokenRule(rules, edge('src/remote/machine/local-machine.ts', 'src/remote/transport/index.ts'))!,
        /remote\/machine \(layer "machines"\) may not import remote\/transport/,
      );
      assert.match(brokenRule(rules, edge('src/config/load.ts', 'src/auth/provider.ts'))!, /config → auth is not in sideways/);
      assert.match(brokenRule(rules, edge('src/runtime/bridge.ts', 'src/remote/machine/index.ts'))!, /runtime may import only common/);
      assert.match(brokenRule(rules, edge('src/bindings/host.ts', 'src/runtime/index.ts'))!, /bindings \(layer "bindings"\) may not import runtime/);
      assert.match(brokenRule(rules, edge('src/runtime/bridge.ts', undefined, '@modelcontextprotocol/sdk/types.js'))!, /package @modelcontextprotocol/);
      assert.equal(brokenRule(rules, edge('src/cli/main.ts', 'src/serve/index.ts')), undefined);
      assert.equal(brokenRule(rules, edge('src/bindings/host.ts', 'src/common/errors.ts')), undefined);
      assert.equal(brokenRule(rules, edge('src/remote/transport/index.ts', 'src/remote/machine/index.ts')), undefined);
    });

    it('counts the .ts files at the top of each folder, not below it', () => {
      const files = [
        ...Array.from({ length: 17 }, (_, i) => `src/wide/f${i}.ts`),
        ...Array.from({ length: 16 }, (_, i) => `src/ok/f${i}.ts`),
        'src/ok/sub/g.ts',
      ];
      assert.deepEqual(tooWide(files, 16), ['src/wide (17 files)']);
    });

    it("counts a file's lines as an editor does", () => {
      const texts: Record<string, string> = { 'src/ok.ts': 'a\n'.repeat(300), 'src/long.ts': 'a\n'.repeat(301) };
      assert.deepEqual(
        tooLong(Object.keys(texts), 300, (file) => texts[file]!),
        ['src/long.ts (301 lines)'],
      );
    });

    it('finds a cycle and prints it as a path', () => {
      const cycles = cyclesOf([edge('src/a.ts', 'src/b.ts'), edge('src/b.ts', 'src/c.ts'), edge('src/c.ts', 'src/a.ts'), edge('src/c.ts', 'src/d.ts')]);
      assert.deepEqual(cycles, [['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts']]);
    });
  });
});
