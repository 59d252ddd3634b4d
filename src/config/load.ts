/**
 * loadConfig: read the file from the target machine, parse, validate and resolve every entry.
 * Fresh on every call (the host rereads on each operation); one bad entry never hides the others.
 */
import * as posix from 'node:path/posix';
import { ConfigError, isBerryError } from '../common/errors.js';
import { configPathOrDefault, isHomeRelative, resolveMachinePath } from './config-path.js';
import { variableNames } from './expand-env.js';
import { formatJsonPath, memberPath } from './json/json-path.js';
import { parseJson, type LocatedDuplicate, type ParsedJson } from './json/parse-json.js';
import { serverConfigError, type Problem } from './problems.js';
import { resolveEntry } from './resolve.js';
import { shareWritablePlaces } from './resolve-sandbox.js';
import type { Machine } from '../remote/machine/index.js';
import type { LoadConfigOptions, LoadedConfig, ServerSlot } from './types.js';
import { validateEntry, validateTopLevel, type ValidEntry, type ValidHttpEntry } from './validate/validate.js';

const SERVERS_PATH = ['mcpServers'] as const;

/**
 * Reads the MCP config file on `options.machine` and resolves every entry. Called on every
 * operation: the file is always read again; parsing is skipped when its text is unchanged, and
 * resolution when its inputs (text, cwd, home, the referenced variables' values) are.
 *
 * A missing file gives `{ exists: false, servers: [] }`. A problem with the file as a whole (not
 * readable, invalid JSON, wrong top level) throws a ConfigError; a problem with one entry becomes
 * that server's `status: 'error'` slot (a ConfigError, or an EnvVarMissingError naming every
 * missing variable) and leaves the other servers alone. Errors from the machine itself (a
 * BerryError such as MACHINE_UNAVAILABLE) and aborts pass through unchanged.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const { machine, cwd, configPath, signal } = normalizeLoadConfigOptions(options);
  signal?.throwIfAborted();
  let home: string | undefined;
  const getHome = async (): Promise<string> => (home ??= await machine.homeDir(signal));
  const path = isHomeRelative(configPath) ? resolveMachinePath(configPath, cwd, await getHome()) : resolvedPath(configPath, cwd);

  const text = await readConfigFile(machine, path, signal);
  signal?.throwIfAborted();
  if (text === undefined) return { path, exists: false, servers: [] };

  const parsed = parseCached(path, text);
  if (parsed.enabled.length === 0) return { path, exists: true, servers: parsed.slots as ServerSlot[] };
  // The machine is asked only for what some entry needs.
  const env = parsed.variables.length > 0 ? await machine.env(signal) : {};
  if (parsed.needsHome) await getHome();
  signal?.throwIfAborted();
  // Resolution depends only on these inputs: the same inputs give the same (immutable) result.
  let key = `${cwd}\0${home ?? ''}`;
  for (const name of parsed.variables) key += env[name] === undefined ? '\0\u0001' : `\0\u0002${env[name]}`;
  const cached = parsed.resolved.get(key);
  if (cached) return cached;
  const context = { file: path, env, cwd, home };
  const loaded: LoadedConfig = {
    path,
    exists: true,
    servers: shareWritablePlaces(
      parsed.slots.map((slot): ServerSlot => {
        if ('status' in slot) return slot;
        const resolution = resolveEntry(slot, context);
        return resolution.ok ? { name: slot.name, status: 'ok', config: resolution.config } : { name: slot.name, status: 'error', error: resolution.error };
      }),
    ),
  };
  remember(parsed.resolved, key, loaded, MAX_RESOLVED_PER_TEXT);
  return loaded;
}

interface ParsedFile {
  readonly text: string;
  readonly slots: readonly (ServerSlot | ValidEntry)[];
  readonly enabled: readonly ValidEntry[];
  /** Names of the `${VAR}`s the enabled entries use, in a stable order. */
  readonly variables: readonly string[];
  readonly needsHome: boolean;
  readonly resolved: Map<string, LoadedConfig>;
}

const MAX_FILES = 32;
const MAX_RESOLVED_PER_TEXT = 8;
/** The file is reread on every operation; parsing and validating it again is skipped when its text is unchanged. */
const parsedFiles = new Map<string, ParsedFile>();

function parseCached(path: string, text: string): ParsedFile {
  const cached = parsedFiles.get(path);
  if (cached?.text === text) return cached;
  const parsed = parseFile(path, text);
  remember(parsedFiles, path, parsed, MAX_FILES);
  return parsed;
}

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

/**
 * The checks of the file as a whole (JSON syntax, a repeated top-level key, the top level's
 * shape); throws their ConfigError. `servers` is the `mcpServers` object, undefined when absent.
 */
export function parseConfigFile(path: string, text: string): { readonly parsed: ParsedJson; readonly servers: Record<string, unknown> | undefined } {
  const parsed = parseJson(text, path, SERVERS_PATH);
  const topDuplicate = parsed.duplicates.find((duplicate) => duplicate.path.length === 0);
  if (topDuplicate !== undefined) throw duplicateTopLevelError(path, topDuplicate);
  return { parsed, servers: validateTopLevel(parsed.value, path) };
}

function parseFile(path: string, text: string): ParsedFile {
  const { parsed, servers } = parseConfigFile(path, text);
  const names = servers === undefined ? [] : (parsed.orderedKeys ?? Object.keys(servers));
  const slots: (ServerSlot | ValidEntry)[] = names.map((name) => {
    const validation = validateEntry(name, servers?.[name], duplicateProblems(parsed.duplicates, name));
    if (!validation.ok) {
      return { name, status: 'error', error: serverConfigError(path, name, validation.problems) } as const;
    }
    const entry = validation.entry;
    if (!entry.enabled) return { name, status: 'disabled', transport: entry.kind } as const;
    return entry;
  });
  const enabled = slots.filter((slot): slot is ValidEntry => !('status' in slot));
  return {
    text,
    slots,
    enabled,
    variables: [...new Set(enabled.flatMap(referencedVariables))].sort(),
    needsHome: enabled.some((entry) => entry.kind === 'stdio' && (entry.cwd !== undefined || entry.sandbox !== undefined)),
    resolved: new Map(),
  };
}

interface NormalizedOptions {
  readonly machine: LoadConfigOptions['machine'];
  readonly cwd: string;
  readonly configPath: string;
  readonly signal: AbortSignal | undefined;
}

function normalizeLoadConfigOptions(options: LoadConfigOptions): NormalizedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('loadConfig: options must be an object');
  const { machine, cwd, configPath, signal } = options;
  if (typeof machine !== 'object' || machine === null) {
    throw new TypeError('loadConfig: options.machine must be a Machine');
  }
  if (typeof cwd !== 'string' || !posix.isAbsolute(cwd)) {
    throw new TypeError(`loadConfig: options.cwd must be an absolute POSIX path, got ${JSON.stringify(cwd)}`);
  }
  if (configPath !== undefined && typeof configPath !== 'string') {
    throw new TypeError('loadConfig: options.configPath must be a string when given');
  }
  return { machine, cwd, configPath: configPathOrDefault(configPath), signal };
}

let lastResolved: { readonly configPath: string; readonly cwd: string; readonly path: string } | undefined;

/** `configPath` made absolute against `cwd`; the last answer is kept, as a host asks the same on every operation. */
function resolvedPath(configPath: string, cwd: string): string {
  if (lastResolved?.configPath === configPath && lastResolved.cwd === cwd) return lastResolved.path;
  const path = resolveMachinePath(configPath, cwd, undefined);
  lastResolved = { configPath, cwd, path };
  return path;
}

function referencedVariables(entry: ValidEntry): string[] {
  const values =
    entry.kind === 'http'
      ? [entry.url, ...entry.headers.map(([, value]) => value), ...oauthStrings(entry)]
      : [
          entry.command,
          ...entry.args,
          ...entry.env.map(([, value]) => value),
          ...(entry.cwd === undefined ? [] : [entry.cwd]),
          ...(entry.sandbox ? [...entry.sandbox.roBinds, ...entry.sandbox.rwBinds] : []),
        ];
  return values.flatMap(variableNames);
}

function oauthStrings(entry: ValidHttpEntry): string[] {
  const o = entry.oauth;
  if (o === undefined) return [];
  return [o.clientId, o.clientSecret, o.privateKey, o.privateKeyFile, o.clientMetadataUrl].filter((v): v is string => v !== undefined);
}

/** The config file's text (undefined: no file); a file that cannot be read is the ConfigError `list` reports. */
export async function readConfigFile(machine: Machine, path: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return await machine.readFile(path, signal);
  } catch (error) {
    if (signal?.aborted === true || isBerryError(error)) throw error;
    throw readError(path, error);
  }
}

function readError(path: string, error: unknown): ConfigError {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const reason =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied. Make it readable by the user running berry-mcp, or choose another config path'
      : code === 'EISDIR'
        ? 'it is a directory. Point the config path at the JSON file itself'
        : `${typeof code === 'string' ? code : 'read failed'}. Check the file, or choose another config path`;
  return new ConfigError(`Cannot read the MCP config file ${path}: ${reason}.`, { file: path }, { cause: error });
}

function duplicateTopLevelError(file: string, duplicate: LocatedDuplicate): ConfigError {
  return new ConfigError(
    `Duplicate top-level key ${JSON.stringify(duplicate.key)} in ${file} at line ${duplicate.line}, column ${duplicate.column} (first at line ${duplicate.firstLine}); JSON keeps only the last. Keep one and retry.`,
    { file, jsonPath: memberPath('$', duplicate.key), line: duplicate.line, column: duplicate.column },
  );
}

/** Keys given twice in server `name`'s entry, or the server name itself given twice. */
function duplicateProblems(duplicates: readonly LocatedDuplicate[], name: string): Problem[] {
  const problems: Problem[] = [];
  for (const duplicate of duplicates) {
    const [first, second] = duplicate.path;
    if (first !== SERVERS_PATH[0]) continue;
    const isServerName = duplicate.path.length === 1 && duplicate.key === name;
    if (!isServerName && second !== name) continue;
    const jsonPath = memberPath(formatJsonPath(duplicate.path), duplicate.key);
    const what = isServerName ? 'is defined more than once' : 'is given more than once';
    problems.push({
      jsonPath,
      text: `${jsonPath} ${what} (lines ${duplicate.firstLine} and ${duplicate.line}); JSON keeps only the last, so remove one`,
    });
  }
  return problems;
}
