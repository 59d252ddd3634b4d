/**
 * From a validated entry to a resolved one: `${NAME}` expanded, paths made absolute, the URL
 * checked, and the fingerprint, secrets and display label computed.
 */
import { EnvVarMissingError, type ConfigError } from '../common/errors.js';
import { resolveMachinePath } from './config-path.js';
import { createExpandContext, expandVars, hasReference, type ExpandContext } from './expand-env.js';
import { withFingerprints, type CanonicalValue } from './fingerprint.js';
import type { SandboxPolicy } from '../remote/machine/sandbox/sandbox-policy.js';
import { indexPath, memberPath } from './json/json-path.js';
import { serverConfigError, type Problem } from './problems.js';
import { resolveSandbox } from './resolve-sandbox.js';
import type { ResolvedHttpConfig, ResolvedOAuthConfig, ResolvedServerConfig, ResolvedStdioConfig } from './types.js';
import type { ValidEntry, ValidHttpEntry, ValidStdioEntry } from './validate/validate.js';
import type { ProtocolSetting } from './protocol.js';

export const MAX_INIT_TIMEOUT_MS = 30_000;
const MIN_SECRET_LENGTH = 4;
const HEADER_VALUE_FORBIDDEN = /[\r\n\0]/;

export interface ResolveContext {
  /** Absolute path of the config file (for messages). */
  readonly file: string;
  /** The machine's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The working directory option (absolute). */
  readonly cwd: string;
  /** The machine's home directory; needed only by a stdio entry with a `cwd`. */
  readonly home: string | undefined;
}

export type Resolution =
  | { readonly ok: true; readonly config: ResolvedServerConfig }
  | { readonly ok: false; readonly error: ConfigError | EnvVarMissingError };

/** Resolves an enabled entry, or returns the one error that keeps it from running. */
export function resolveEntry(entry: ValidEntry, context: ResolveContext): Resolution {
  const expand = createExpandContext(context.env);
  const problems: Problem[] = [];
  const config = entry.kind === 'stdio' ? resolveStdio(entry, context, expand, problems) : resolveHttp(entry, expand, problems);
  // Precedence: a syntax fix in the file, then the variables to set, then the values themselves
  // (which are meaningless while a variable is missing).
  if (expand.problems.length > 0) {
    return { ok: false, error: serverConfigError(context.file, entry.name, expand.problems) };
  }
  if (expand.missing.size > 0) {
    return { ok: false, error: missingVariablesError(context.file, entry.name, expand.missing) };
  }
  if (problems.length > 0) {
    return { ok: false, error: serverConfigError(context.file, entry.name, problems) };
  }
  return { ok: true, config };
}

function resolveStdio(entry: ValidStdioEntry, context: ResolveContext, expand: ExpandContext, problems: Problem[]): ResolvedStdioConfig {
  const base = entry.jsonPath;
  const commandPath = memberPath(base, 'command');
  const command = expandVars(entry.command, commandPath, expand);
  if (command === '') problems.push({ jsonPath: commandPath, text: `${commandPath} is empty after substituting variables` });

  const argsPath = memberPath(base, 'args');
  const args = entry.args.map((arg, index) => {
    const value = expandVars(arg, indexPath(argsPath, index), expand);
    // spawn rejects NUL with a message that quotes the value
    if (value.includes('\0')) problems.push(nulProblem(indexPath(argsPath, index)));
    return value;
  });

  const envPath = memberPath(base, 'env');
  const env = expandRecord(entry.env, envPath, expand, (path, value) => (value.includes('\0') ? nulProblem(path) : undefined));
  problems.push(...env.problems);

  let cwd = context.cwd;
  if (entry.cwd !== undefined) {
    const cwdPath = memberPath(base, 'cwd');
    const written = expandVars(entry.cwd, cwdPath, expand);
    if (written === '') problems.push({ jsonPath: cwdPath, text: `${cwdPath} is empty after substituting variables` });
    else cwd = resolveMachinePath(written, context.cwd, context.home);
  }

  const sandbox = entry.sandbox
    ? resolveSandbox(entry.sandbox, { jsonPath: memberPath(base, 'sandbox'), server: entry.name, cwd, home: context.home }, expand, problems)
    : undefined;
  const timeoutMs = entry.timeoutMs;
  return withFingerprints<ResolvedStdioConfig>(
    {
      kind: 'stdio',
      name: entry.name,
      command,
      args: Object.freeze(args),
      env: env.record,
      cwd,
      ...(sandbox ? { sandbox } : {}),
      timeoutMs,
      initTimeoutMs: Math.min(timeoutMs, MAX_INIT_TIMEOUT_MS),
      protocol: entry.protocol,
      ...(entry.toolFilter ? { toolFilter: entry.toolFilter } : {}),
      secrets: secretsOf(env.record, expand.substituted),
      display: [entry.command, ...entry.args].join(' '),
    },
    // The sandbox block (its private home included) is part of what a shared connection must match.
    {
      kind: 'stdio',
      command,
      args,
      env: env.record,
      cwd,
      timeoutMs,
      ...protocolKey(entry.protocol),
      ...(sandbox ? { sandbox: sandboxKey(sandbox) } : {}),
    },
    { kind: 'stdio', public: true, command, args, cwd },
  );
}

function sandboxKey(sandbox: SandboxPolicy): CanonicalValue {
  return { ...sandbox, binds: sandbox.binds.map((bind) => ({ ...bind })), envPass: [...sandbox.envPass] };
}

function resolveHttp(entry: ValidHttpEntry, expand: ExpandContext, problems: Problem[]): ResolvedHttpConfig {
  const urlPath = memberPath(entry.jsonPath, 'url');
  const url = expandVars(entry.url, urlPath, expand);
  if (!isHttpUrl(url)) {
    // Quote the URL as written: the expanded one may contain a secret.
    const note = hasReference(entry.url) ? ' (after substituting variables)' : '';
    problems.push({
      jsonPath: urlPath,
      text: `${urlPath} must be an absolute http:// or https:// URL, got ${JSON.stringify(entry.url)}${note}`,
    });
  }
  const headersPath = memberPath(entry.jsonPath, 'headers');
  const headers = expandRecord(entry.headers, headersPath, expand, (path, value) =>
    // undici rejects these with a message that may quote the value
    HEADER_VALUE_FORBIDDEN.test(value)
      ? { jsonPath: path, text: `${path} contains a line break or NUL character, which HTTP headers cannot carry` }
      : undefined,
  );
  problems.push(...headers.problems);

  const oauth = entry.oauth === undefined ? undefined : resolveOAuth(entry, expand, problems);
  const timeoutMs = entry.timeoutMs;
  const oauthSecrets = oauth ? [oauth.clientSecret, oauth.privateKey, ...privateKeyLines(oauth.privateKey)] : [];
  return withFingerprints<ResolvedHttpConfig>(
    {
      kind: 'http',
      name: entry.name,
      url,
      headers: headers.record,
      ...(oauth ? { oauth } : {}),
      timeoutMs,
      initTimeoutMs: Math.min(timeoutMs, MAX_INIT_TIMEOUT_MS),
      protocol: entry.protocol,
      ...(entry.toolFilter ? { toolFilter: entry.toolFilter } : {}),
      secrets: secretsOf(headers.record, [...expand.substituted, ...oauthSecrets.filter((s): s is string => s !== undefined)]),
      display: entry.url,
    },
    {
      kind: 'http',
      url,
      headers: headers.record,
      timeoutMs,
      ...protocolKey(entry.protocol),
      ...(oauth ? { oauth: { ...oauth } } : {}),
    },
    { kind: 'http', public: true, url },
  );
}

function resolveOAuth(entry: ValidHttpEntry, expand: ExpandContext, problems: Problem[]): ResolvedOAuthConfig {
  const block = entry.oauth!;
  const base = memberPath(entry.jsonPath, 'oauth');
  const out: { -readonly [K in keyof ResolvedOAuthConfig]: ResolvedOAuthConfig[K] } = { grant: block.grant };
  for (const key of ['clientId', 'clientSecret', 'privateKey', 'privateKeyFile', 'clientMetadataUrl'] as const) {
    const raw = block[key];
    if (raw === undefined) continue;
    const path = memberPath(base, key);
    const value = expandVars(raw, path, expand);
    if (value === '') problems.push({ jsonPath: path, text: `${path} is empty after substituting variables` });
    else if (key !== 'privateKey' && /[\r\n\0]/.test(value)) {
      problems.push({ jsonPath: path, text: `${path} contains a line break or NUL character` });
    }
    out[key] = value;
  }
  if (out.privateKeyFile !== undefined && !out.privateKeyFile.startsWith('/') && !out.privateKeyFile.startsWith('~/')) {
    const path = memberPath(base, 'privateKeyFile');
    problems.push({ jsonPath: path, text: `${path} must be an absolute path or start with ~/ (a file on the target machine)` });
  }
  if (out.clientMetadataUrl !== undefined && !isClientMetadataUrl(out.clientMetadataUrl)) {
    const path = memberPath(base, 'clientMetadataUrl');
    problems.push({ jsonPath: path, text: `${path} must be an https:// URL with a path (a client ID metadata document)` });
  }
  if (block.signingAlgorithm !== undefined) out.signingAlgorithm = block.signingAlgorithm;
  if (block.scopes !== undefined) out.scopes = Object.freeze([...block.scopes]);
  if (block.redirectPort !== undefined) out.redirectPort = block.redirectPort;
  return Object.freeze(out);
}

function isClientMetadataUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}

// A PEM key may show up cut into its lines (a log that splits lines): redact each long one too.
function privateKeyLines(key: string | undefined): string[] {
  if (key === undefined) return [];
  return key.split(/\r?\n/).filter((line) => line.length >= 16 && !line.startsWith('-----'));
}

/** Expands the values of an env or headers object into a frozen null-prototype record. */
function expandRecord(
  pairs: readonly (readonly [string, string])[],
  path: string,
  expand: ExpandContext,
  check: (path: string, value: string) => Problem | undefined,
): { record: Readonly<Record<string, string>>; problems: Problem[] } {
  const record = Object.create(null) as Record<string, string>;
  const problems: Problem[] = [];
  for (const [name, raw] of pairs) {
    const itemPath = memberPath(path, name);
    const value = expandVars(raw, itemPath, expand);
    const problem = check(itemPath, value);
    if (problem !== undefined) problems.push(problem);
    record[name] = value;
  }
  return { record: Object.freeze(record), problems };
}

function nulProblem(path: string): Problem {
  return { jsonPath: path, text: `${path} contains a NUL character` };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Resolved env or header values plus substituted values: deduplicated, short ones skipped. */
function secretsOf(values: Readonly<Record<string, string>>, substituted: readonly string[]): readonly string[] {
  const secrets = new Set<string>();
  for (const value of Object.values(values)) if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
  for (const value of substituted) if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
  return Object.freeze([...secrets]);
}

function missingVariablesError(file: string, server: string, missing: ReadonlySet<string>): EnvVarMissingError {
  const names = Object.freeze([...missing].sort());
  const what = names.length === 1 ? `environment variable ${names[0]} is` : `environment variables ${names.join(', ')} are`;
  return new EnvVarMissingError(
    `Server ${JSON.stringify(server)}: ${what} not set on the target machine (used in ${file}). Set ${names.length === 1 ? 'it' : 'them'} or edit the entry.`,
    { names, server, file },
  );
}

// `auto` is left out so fingerprints (and saved catalogs) of entries written before `protocol` stay.
function protocolKey(protocol: ProtocolSetting): { protocol?: string } {
  return protocol === 'auto' ? {} : { protocol };
}
