/**
 * Warnings from TypeScript's own checker: the script, checked against the script API
 * (typings/berry-mcp.d.ts) and the typings berry-mcp generates for the servers it names (declared
 * and observed output types). Only what concerns those servers' results is kept: a property the
 * declared or observed type lacks, a value that may be undefined there. The rest (the script's
 * own style, the generic API's content unions) is not reported. The lib, the API and each typings
 * text are parsed once per process and reused by every later check.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { nodeCrypto } from '../../common/lazy-node.js';
import { PACKAGE_ROOT } from '../../common/package-root.js';
import type { CompilerHost, CompilerOptions, Diagnostic, Node, SourceFile, Type, TypeChecker } from 'typescript';
import { generateTypings, type TypingsServerInput } from '../typings/index.js';
import type { ServerCatalog } from './catalog-view.js';
import type { TypeScript } from './load-typescript.js';
import type { ParsedScript } from './parse-script.js';

/** Scripts longer than this get no type warnings (the call check still runs). */
const MAX_TYPED_CHARS = 64 * 1024;
/**
 * The checker's time for one script, warm; past it the warnings are given up. It runs beside the
 * run, but on the thread that answers the run's calls: this bounds how long it may hold them.
 */
export const TYPE_BUDGET_MS = 15;
const MAX_WARNINGS = 10;
const MAX_WARNING_CHARS = 300;
/** Property missing; possibly undefined or null. */
const MISSING = new Set([2339, 2551]);
const MAYBE_ABSENT = new Set([18048, 2532, 18047, 2531, 18049]);

const API_FILE = '/berry-mcp/api.d.ts';
const SERVERS_FILE = '/berry-mcp/servers.d.ts';

interface Warm {
  readonly ts: TypeScript;
  readonly options: CompilerOptions;
  readonly libDir: string;
  readonly files: Map<string, SourceFile>;
  readonly typings: Map<string, string>;
  servers?: SourceFile;
}

/** The compiler's state, kept for the process: the lib, the API and the last typings parsed once. */
let warm: Warm | undefined;
let checkedRuns = 0;

/**
 * The checker's share of this thread over time, and the most it may take in one burst (ms). It
 * runs on the thread that answers every run's calls (serve's main thread), ≈ 4–8 ms a script: with
 * many runs starting at once it would be most of that thread (256 at once: 8–15 ms of serve's CPU
 * per run, against 2.3 without). Past its share the warnings, which only advise, are skipped; a
 * run that starts while the share lasts (a model's runs, seconds apart) gets them as before.
 */
const CHECKER_SHARE = 0.1;
const CHECKER_BURST_MS = 250;
let allowanceMs = CHECKER_BURST_MS;
let allowanceAt = performance.now();

/** Whether the checker may run now: its allowance, refilled at CHECKER_SHARE of the time since, is left. */
function withinShare(): boolean {
  const now = performance.now();
  allowanceMs = Math.min(CHECKER_BURST_MS, allowanceMs + (now - allowanceAt) * CHECKER_SHARE);
  allowanceAt = now;
  return allowanceMs > 0;
}

/**
 * The type warnings of `parsed` (line:column, message), at most MAX_WARNINGS. Only from a warm
 * checker: making one (parsing the lib, ≈ 0.5–1 s) is never on a run's path. A process's second
 * checked script starts it in the background, so a one-shot `berry-mcp run` never pays for it
 * and a long-lived host or serve has it from its third run on.
 */
export async function typeWarnings(
  ts: TypeScript,
  parsed: ParsedScript,
  code: string,
  catalogs: ReadonlyMap<string, ServerCatalog>,
  budgetMs = TYPE_BUDGET_MS,
): Promise<string[]> {
  if (warm === undefined) {
    if (++checkedRuns === 2) {
      setTimeout(() => {
        try {
          warmUp(ts);
        } catch {
          // No warm checker: no type warnings; the call check does not need one.
        }
      }, 0).unref();
    }
    return [];
  }
  if (code.length > MAX_TYPED_CHARS || budgetMs <= 0) return [];
  const inputs: TypingsServerInput[] = [];
  for (const [server, catalog] of catalogs) {
    if (catalog.kind !== 'listed') continue;
    // Only the tools the script names (smaller typings check faster); the count of calls only
    // changes a comment: left out, a run that teaches nothing new generates nothing.
    const tools = catalog.visible.filter((tool) => catalog.tools.has(tool.name));
    const observed = catalog.observed && new Map([...catalog.observed].map(([tool, o]) => [tool, { ...o, calls: 1 }]));
    inputs.push({ server, tools, prompts: catalog.prompts ?? [], ...(observed ? { observed } : {}) });
  }
  if (inputs.length === 0) return [];
  const typings = await typingsOf(warm, inputs);
  // Asked after the await, right before the checker runs: runs that start together each see what the others spent.
  if (!withinShare()) return [];
  // The checker's own time (synchronous, so this run's alone) is what the share counts.
  const from = performance.now();
  try {
    return diagnose(warm, parsed, typings, budgetMs);
  } finally {
    // A long budget (an embedder's) may overdraw once; the share then recovers within seconds.
    allowanceMs = Math.max(-CHECKER_BURST_MS, allowanceMs - (performance.now() - from));
  }
}

function diagnose(state: Warm, parsed: ParsedScript, typings: string, budgetMs: number): string[] {
  const { ts } = state;
  const servers = serversFile(state, typings);
  const host = compilerHost(state, parsed.file, servers);
  // No oldProgram: the SourceFiles are reused through the host already, and the last program
  // would keep its whole checker alive (more heap for every run's garbage collector to walk).
  const program = ts.createProgram({ rootNames: [parsed.file.fileName, API_FILE, SERVERS_FILE], options: state.options, host });
  const deadline = performance.now() + budgetMs;
  const token = {
    isCancellationRequested: () => performance.now() > deadline,
    throwIfCancellationRequested: () => {
      if (performance.now() > deadline) throw new ts.OperationCanceledException();
    },
  };
  let diagnostics: readonly Diagnostic[];
  try {
    diagnostics = program.getSemanticDiagnostics(parsed.file, token);
  } catch (error) {
    if (error instanceof ts.OperationCanceledException) return [];
    throw error;
  }
  const checker = program.getTypeChecker();
  const warnings: string[] = [];
  for (const diagnostic of diagnostics) {
    if (warnings.length >= MAX_WARNINGS) break;
    if (diagnostic.start === undefined || !aboutServerTypes(ts, checker, parsed.file, diagnostic, servers)) continue;
    const { line, column } = parsed.at(diagnostic.start);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ').slice(0, MAX_WARNING_CHARS);
    warnings.push(`${line}:${column} TS${diagnostic.code}: ${text} (from the server's typings; the run goes on)`);
  }
  return warnings;
}

/** Parses the lib and the API and checks an empty script once: the first real check is then warm. */
function warmUp(ts: TypeScript): void {
  if (warm !== undefined) return;
  const options: CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es5.d.ts', 'lib.es2015.promise.d.ts', 'lib.es2015.iterable.d.ts', 'lib.es2015.symbol.d.ts', 'lib.es2015.collection.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    noResolve: true,
  };
  const libDir = dirname(ts.getDefaultLibFilePath(options));
  const files = new Map<string, SourceFile>();
  const api = readFileSync(new URL('typings/berry-mcp.d.ts', PACKAGE_ROOT), 'utf8');
  files.set(API_FILE, ts.createSourceFile(API_FILE, api, ts.ScriptTarget.ES2022, false));
  const state: Warm = { ts, options, libDir, files, typings: new Map() };
  const empty = ts.createSourceFile('/berry-mcp/warm.ts', '(async () => { await tools.mcp_list({}); })', ts.ScriptTarget.ES2022, true);
  const program = ts.createProgram({ rootNames: [empty.fileName, API_FILE, SERVERS_FILE], options, host: compilerHost(state, empty, serversFile(state, '')) });
  program.getSemanticDiagnostics(empty);
  warm = state;
}

/**
 * The generated typings of `inputs`, by their content (unchanged catalogs generate nothing), with
 * their server map renamed and read through one plain signature of `mcp_call` (the API's own
 * signatures over a filled map cost the checker several times more), whose arguments are unknown:
 * they are the call check's business, not the warnings'.
 */
async function typingsOf(state: Warm, inputs: readonly TypingsServerInput[]): Promise<string> {
  const key = nodeCrypto()
    .createHash('sha256')
    .update(JSON.stringify(inputs.map((i) => [i.server, i.tools, i.prompts, i.observed ? [...i.observed] : null])))
    .digest('hex');
  let text = state.typings.get(key);
  if (text === undefined) {
    const generated = await generateTypings(inputs);
    const renamed = generated.replace(
      '\ndeclare namespace BerryMcp {\n  interface Servers {\n',
      '\ndeclare namespace BerryMcp {\n  interface CheckedServers {\n',
    );
    if (renamed === generated) return '';
    // One generic signature, not an overload per tool: TypeScript checks a call's arguments once per candidate signature.
    const call =
      '    mcp_call<S extends keyof CheckedServers, T extends keyof CheckedServers[S]>(request: { readonly server: S; readonly tool: T; readonly arguments?: unknown }): ' +
      'Promise<CallResultWith<CheckedServers[S][T] extends { structured: infer R } ? R : unknown>>;\n';
    text = `${renamed.replace('\n  interface Prompts {\n', '\n  interface CheckedPrompts {\n')}\ndeclare namespace BerryMcp {\n  interface Tools {\n${call}  }\n}\n`;
    state.typings.set(key, text);
    if (state.typings.size > 16) state.typings.delete(state.typings.keys().next().value!);
  }
  return text;
}

/** The typings' SourceFile, parsed again only when their text changed. */
function serversFile(state: Warm, text: string): SourceFile {
  if (state.servers?.text !== text) state.servers = state.ts.createSourceFile(SERVERS_FILE, text, state.ts.ScriptTarget.ES2022, false);
  return state.servers;
}

function compilerHost(state: Warm, script: SourceFile, servers: SourceFile): CompilerHost {
  const { ts, files, libDir } = state;
  const sourceFile = (name: string): SourceFile | undefined => {
    if (name === script.fileName) return script;
    if (name === SERVERS_FILE) return servers;
    let file = files.get(name);
    if (file === undefined && name.startsWith(`${libDir}/lib.`) && name.endsWith('.d.ts')) {
      file = ts.createSourceFile(name, readFileSync(name, 'utf8'), ts.ScriptTarget.ES2022, false);
      files.set(name, file);
    }
    return file;
  };
  return {
    getSourceFile: sourceFile,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    getDefaultLibLocation: () => libDir,
    writeFile: () => {},
    getCurrentDirectory: () => '/berry-mcp',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => sourceFile(name) !== undefined,
    readFile: (name) => sourceFile(name)?.text,
  };
}

/** The diagnostic is about a value typed by the generated server typings (not the generic API, not the script's own values). */
function aboutServerTypes(ts: TypeScript, checker: TypeChecker, file: SourceFile, diagnostic: Diagnostic, servers: SourceFile): boolean {
  const node = nodeAt(ts, file, diagnostic.start!, diagnostic.length ?? 0);
  if (node === undefined) return false;
  if (MISSING.has(diagnostic.code)) {
    const access = node.parent;
    if (access === undefined || !ts.isPropertyAccessExpression(access) || access.name !== node) return false;
    return declaredIn(checker.getTypeAtLocation(access.expression), servers);
  }
  if (MAYBE_ABSENT.has(diagnostic.code)) {
    // A tool with an output schema sends structuredContent with every result that is not an error.
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'structuredContent') return false;
    return declaredIn(checker.getNonNullableType(checker.getTypeAtLocation(node)), servers);
  }
  return false;
}

function declaredIn(type: Type, servers: SourceFile): boolean {
  const parts = type.isUnion() ? type.types : [type];
  return parts.some((part) =>
    [part.aliasSymbol, part.getSymbol()].some((symbol) => symbol?.declarations?.some((declaration) => declaration.getSourceFile() === servers)),
  );
}

/** The smallest node spanning exactly [start, start + length). */
function nodeAt(ts: TypeScript, file: SourceFile, start: number, length: number): Node | undefined {
  let found: Node | undefined;
  let node: Node | undefined = file;
  while (node !== undefined) {
    const current: Node = node;
    node = undefined;
    if (current.getStart(file) === start && current.end === start + length) found = current;
    ts.forEachChild(current, (child) => {
      if (node === undefined && child.pos <= start && start < child.end) node = child;
    });
  }
  return found;
}
