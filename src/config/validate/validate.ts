/**
 * The strict schema of the config file, hand-written: raw JSON in, a tagged union of entries as
 * written out (no `${VAR}` expanded yet), or a precise list of problems.
 */
import { ConfigError } from '../../common/errors.js';
import { indexPath, isJsonObject, jsonTypeName, memberPath } from '../json/json-path.js';
import type { Problem } from '../problems.js';
import type { ToolFilter } from '../types.js';
import { validateOAuthBlock, type ValidOAuthBlock } from './validate-oauth.js';
import { validateSandboxBlock, type ValidSandboxBlock } from './validate-sandbox.js';
import { protocolProblem, type ProtocolSetting } from '../protocol.js';

interface ValidCommon {
  readonly name: string;
  readonly enabled: boolean;
  readonly timeoutMs: number;
  readonly protocol: ProtocolSetting;
  readonly toolFilter?: ToolFilter;
  /** JSON path of the entry, e.g. `$.mcpServers.docs`. */
  readonly jsonPath: string;
}

export interface ValidStdioEntry extends ValidCommon {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly (readonly [string, string])[];
  readonly cwd: string | undefined;
  /** Absent when the entry has none or its `mode` is `off`: then it runs exactly as without. */
  readonly sandbox: ValidSandboxBlock | undefined;
}

export interface ValidHttpEntry extends ValidCommon {
  readonly kind: 'http';
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly oauth: ValidOAuthBlock | undefined;
}

export type ValidEntry = ValidStdioEntry | ValidHttpEntry;

export type EntryValidation = { readonly ok: true; readonly entry: ValidEntry } | { readonly ok: false; readonly problems: readonly Problem[] };

export const DEFAULT_TIMEOUT_S = 60;
export const MAX_TIMEOUT_S = 86_400;
const TOP_LEVEL_KEYS = ['mcpServers'];
const ALLOWED_KEYS =
  'command, args, env, cwd, sandbox (stdio); url, headers, oauth (HTTP); type, enabled, timeout, protocol, enabledTools, disabledTools (both)';
// RFC 9110 token
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// "__proto__" survives JSON.parse, but copied onto an env or headers object it sets the prototype.
const PROTO_REFUSED = 'cannot be passed on: a JavaScript object drops a key named "__proto__"; rename it';

/**
 * Checks the top level and returns the `mcpServers` object (undefined when absent: no servers).
 * Throws a ConfigError for a file-level problem.
 */
export function validateTopLevel(value: unknown, file: string): Record<string, unknown> | undefined {
  if (!isJsonObject(value)) {
    throw new ConfigError(
      `The MCP config file ${file} must contain a JSON object like {"mcpServers": {...}}, got ${jsonTypeName(value)}. Fix the file and retry.`,
      { file, jsonPath: '$' },
    );
  }
  const unknown = Object.keys(value).filter((key) => !TOP_LEVEL_KEYS.includes(key));
  const firstUnknown = unknown[0];
  if (firstUnknown !== undefined) {
    const keys = unknown.map((key) => JSON.stringify(key)).join(', ');
    throw new ConfigError(
      `Unknown top-level key${unknown.length > 1 ? 's' : ''} ${keys} in ${file}. Allowed top-level keys: ${TOP_LEVEL_KEYS.join(', ')}. Remove or rename ${unknown.length > 1 ? 'them' : 'it'} and retry.`,
      { file, jsonPath: memberPath('$', firstUnknown) },
    );
  }
  if (!Object.hasOwn(value, 'mcpServers')) return undefined;
  const servers = value['mcpServers'];
  if (!isJsonObject(servers)) {
    throw new ConfigError(`$.mcpServers in ${file} must be an object mapping server names to entries, got ${jsonTypeName(servers)}. Fix the file and retry.`, {
      file,
      jsonPath: '$.mcpServers',
    });
  }
  return servers;
}

/** Validates one entry of `mcpServers`. `extra` holds problems found elsewhere (duplicate keys). */
export function validateEntry(name: string, raw: unknown, extra: readonly Problem[] = []): EntryValidation {
  const base = memberPath('$.mcpServers', name);
  const problems: Problem[] = [];
  const report = (jsonPath: string, text: string): void => {
    problems.push({ jsonPath, text: `${jsonPath} ${text}` });
  };
  if (name === '') report(base, 'has an empty server name; give the server a non-empty name');
  if (!isJsonObject(raw)) {
    report(base, `must be an object with "command" (stdio) or "url" (HTTP), got ${jsonTypeName(raw)}`);
    return { ok: false, problems: [...problems, ...extra] };
  }

  const hasCommand = Object.hasOwn(raw, 'command');
  const hasUrl = Object.hasOwn(raw, 'url');
  const kind = hasCommand === hasUrl ? undefined : hasCommand ? 'stdio' : 'http';
  if (hasCommand && hasUrl) {
    report(base, 'has both "command" and "url"; use "command" for a stdio server or "url" for an HTTP server');
  } else if (kind === undefined) {
    report(base, 'has neither "command" (stdio server) nor "url" (HTTP server); add one of them');
  }

  let command = '';
  let url = '';
  let cwd: string | undefined;
  let args: readonly string[] = [];
  let env: readonly (readonly [string, string])[] = [];
  let headers: readonly (readonly [string, string])[] = [];
  let oauth: ValidOAuthBlock | undefined;
  let sandbox: ValidSandboxBlock | undefined;
  let enabled = true;
  let timeoutS = DEFAULT_TIMEOUT_S;
  let protocol: ProtocolSetting = 'auto';
  let toolFilter: ToolFilter | undefined;

  for (const key of Object.keys(raw)) {
    const value = raw[key];
    const path = memberPath(base, key);
    if (kind === 'http' && (key === 'args' || key === 'env' || key === 'cwd' || key === 'sandbox')) {
      report(path, 'applies only to stdio servers (entries with "command"); remove it');
      continue;
    }
    if (kind === 'stdio' && (key === 'headers' || key === 'oauth')) {
      report(path, 'applies only to HTTP servers (entries with "url"); remove it');
      continue;
    }
    switch (key) {
      case 'command':
      case 'url':
      case 'cwd':
        if (typeof value !== 'string' || value === '') {
          report(path, `must be a non-empty string, got ${typeof value === 'string' ? 'an empty string' : jsonTypeName(value)}`);
        } else if (key === 'command') command = value;
        else if (key === 'url') url = value;
        else cwd = value;
        break;
      case 'args':
        if (!Array.isArray(value)) {
          report(path, `must be an array of strings, got ${jsonTypeName(value)}`);
          break;
        }
        value.forEach((arg: unknown, index) => {
          if (typeof arg !== 'string') report(indexPath(path, index), `must be a string, got ${jsonTypeName(arg)}`);
        });
        args = value as string[];
        break;
      case 'env':
        env = stringRecord(value, path, report, (name) =>
          name === '' || name.includes('=') || name.includes('\0') ? 'is not a valid environment variable name (empty, or contains "=" or NUL)' : undefined,
        );
        break;
      case 'headers':
        headers = stringRecord(value, path, report, (name) => (HEADER_NAME.test(name) ? undefined : 'is not a valid HTTP header name'));
        reportCaseDuplicates(headers, path, report);
        break;
      case 'oauth':
        oauth = validateOAuthBlock(value, path, report);
        break;
      case 'sandbox':
        sandbox = validateSandboxBlock(value, path, report);
        break;
      case 'enabled':
        if (typeof value === 'boolean') enabled = value;
        else report(path, `must be true or false, got ${jsonTypeName(value)}`);
        break;
      case 'timeout':
        if (typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_S) {
          timeoutS = value;
        } else {
          const got = typeof value === 'number' ? String(value) : jsonTypeName(value);
          report(path, `must be a number of seconds greater than 0 and at most ${MAX_TIMEOUT_S}, got ${got}`);
        }
        break;
      case 'protocol': {
        const problem = protocolProblem(value);
        if (problem === undefined) protocol = value as ProtocolSetting;
        else report(path, problem);
        break;
      }
      case 'type': {
        const problem = typeProblem(value, kind);
        if (problem !== undefined) report(path, problem);
        break;
      }
      case 'enabledTools':
      case 'disabledTools': {
        const other = key === 'enabledTools' ? 'disabledTools' : 'enabledTools';
        if (key === 'disabledTools' && Object.hasOwn(raw, other)) {
          report(base, 'has both "enabledTools" and "disabledTools"; keep one (enabledTools lists the only tools to keep)');
          break;
        }
        const names = toolNames(value, path, report);
        if (names) toolFilter = { mode: key === 'enabledTools' ? 'enabled' : 'disabled', names };
        break;
      }
      default:
        report(path, `is not a known key. Allowed keys: ${ALLOWED_KEYS}`);
    }
  }

  if (oauth !== undefined && headers.some(([header]) => header.toLowerCase() === 'authorization')) {
    report(
      memberPath(base, 'headers'),
      'has an "Authorization" header and the entry has "oauth"; berry-mcp sends the OAuth token itself, so remove one of them',
    );
  }
  problems.push(...extra);
  if (problems.length > 0 || kind === undefined) return { ok: false, problems };
  const timeoutMs = Math.max(1, Math.round(timeoutS * 1000));
  const common = { name, enabled, timeoutMs, protocol, jsonPath: base, ...(toolFilter ? { toolFilter } : {}) };
  const entry: ValidEntry =
    kind === 'stdio'
      ? { kind, ...common, command, args, env, cwd, sandbox: sandbox?.mode === 'off' ? undefined : sandbox }
      : { kind, ...common, url, headers, oauth };
  return { ok: true, entry };
}

/** The spellings of `type` that configs copied from other MCP clients carry, and what each means. */
const TYPES: Readonly<Record<string, 'stdio' | 'http'>> = { stdio: 'stdio', http: 'http', 'streamable-http': 'http' };

// `type` is redundant (the transport follows from "command" or "url"), so it must agree with it.
function typeProblem(value: unknown, kind: 'stdio' | 'http' | undefined): string | undefined {
  const allowed = 'must be "stdio", "http" or "streamable-http"';
  if (typeof value !== 'string') return `${allowed}, got ${jsonTypeName(value)}`;
  if (value === 'sse') {
    return 'is "sse", the legacy HTTP+SSE transport, which berry-mcp does not speak (Streamable HTTP only). If the server also offers Streamable HTTP (often at a path ending in /mcp), point "url" there and set "type": "http"';
  }
  const declared = Object.hasOwn(TYPES, value) ? TYPES[value] : undefined;
  if (declared === undefined) return `${allowed}, got ${JSON.stringify(value.slice(0, 40))}`;
  if (kind !== undefined && declared !== kind) {
    const has = kind === 'stdio' ? '"command" (a stdio server)' : '"url" (an HTTP server)';
    return `is ${JSON.stringify(value)} but the entry has ${has}; make them agree or remove "type"`;
  }
  return undefined;
}

/** A tool filter's names: an array of distinct non-empty strings (an empty one hides everything). */
function toolNames(value: unknown, path: string, report: (jsonPath: string, text: string) => void): readonly string[] | undefined {
  if (!Array.isArray(value)) {
    report(path, `must be an array of tool names, got ${jsonTypeName(value)}`);
    return undefined;
  }
  let ok = true;
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || item === '') {
      report(indexPath(path, index), `must be a tool name (a non-empty string), got ${typeof item === 'string' ? 'an empty string' : jsonTypeName(item)}`);
      ok = false;
    } else if (seen.has(item)) {
      report(indexPath(path, index), `repeats ${JSON.stringify(item)}; list each tool once`);
      ok = false;
    } else seen.add(item);
  });
  return ok ? Object.freeze([...seen]) : undefined;
}

/** An object whose values are all strings, as [key, value] pairs in file order. */
function stringRecord(
  value: unknown,
  path: string,
  report: (jsonPath: string, text: string) => void,
  checkName: (name: string) => string | undefined,
): readonly (readonly [string, string])[] {
  if (!isJsonObject(value)) {
    report(path, `must be an object of strings, got ${jsonTypeName(value)}`);
    return [];
  }
  const pairs: (readonly [string, string])[] = [];
  for (const key of Object.keys(value)) {
    const item = value[key];
    const itemPath = memberPath(path, key);
    const nameProblem = key === '__proto__' ? PROTO_REFUSED : checkName(key);
    if (nameProblem !== undefined) report(itemPath, nameProblem);
    if (typeof item === 'string') pairs.push([key, item]);
    else report(itemPath, `must be a string, got ${jsonTypeName(item)}`);
  }
  return pairs;
}

// Header names are case-insensitive: two spellings of one name would silently race.
function reportCaseDuplicates(headers: readonly (readonly [string, string])[], path: string, report: (jsonPath: string, text: string) => void): void {
  const seen = new Map<string, string>();
  for (const [name] of headers) {
    const lower = name.toLowerCase();
    const earlier = seen.get(lower);
    if (earlier === undefined) seen.set(lower, name);
    else report(memberPath(path, name), `repeats header ${JSON.stringify(earlier)} (header names are case-insensitive); keep one`);
  }
}
