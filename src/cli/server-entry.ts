/**
 * The mcp.json entry `berry-mcp add` writes, built from its arguments and flags: a URL makes an
 * HTTP entry, the words after `--` a stdio entry.
 */
import { resolve } from 'node:path';
import type { CliArgs } from './usage.js';
import { UsageError } from './usage.js';
import { commandWords } from './args/shell-words.js';

export interface NewEntry {
  readonly kind: 'stdio' | 'http';
  /** The entry as it is written, keys in the order people read them. */
  readonly entry: Record<string, unknown>;
  /** The same entry with `"enabled": false` left out: what the check starts. */
  readonly enabledEntry: Record<string, unknown>;
}

const URL_START = /^https?:\/\//i;

function usage(message: string): UsageError {
  return new UsageError(message, 'add');
}

function strings(value: CliArgs['values'][keyof CliArgs['values']]): readonly string[] {
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/** `KEY=VALUE` (and for headers `Name: value`) pairs in order; a key given twice is a mistake. */
export function pairs(flag: '--env' | '--header', given: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of given) {
    const eq = item.indexOf('=');
    const colon = flag === '--header' ? item.indexOf(':') : -1;
    const at = colon !== -1 && (eq === -1 || colon < eq) ? colon : eq;
    const key = at === -1 ? '' : item.slice(0, at).trim();
    if (key === '') throw usage(`${flag} needs ${flag === '--env' ? 'KEY=VALUE' : 'NAME=VALUE'}, got a value without ${at === -1 ? '"="' : 'a name'}`);
    // Assigning "__proto__" to an object sets its prototype: the pair would vanish without a word.
    if (key === '__proto__')
      throw usage(
        `${flag} __proto__ is refused: berry-mcp cannot pass on ${flag === '--env' ? 'a variable' : 'a header'} named "__proto__" (a JavaScript object drops that key); rename it`,
      );
    if (Object.hasOwn(out, key)) throw usage(`${flag} ${key} is given twice; keep one`);
    const value = item.slice(at + 1);
    out[key] = at === colon ? value.trimStart() : value;
  }
  return out;
}

/**
 * The entry's `cwd`: absolute, `~/…` or `${VAR}…` paths as written (they mean a place on the
 * target machine); a relative one resolved against the current directory here, refused over SSH.
 */
function entryCwd(cwd: string, base: string, remote: boolean): string {
  if (cwd.startsWith('/') || cwd === '~' || cwd.startsWith('~/') || cwd.startsWith('${')) return cwd;
  if (remote) throw usage('--cwd must be an absolute path (or start with ~/) on the remote machine');
  return resolve(base, cwd);
}

/** Builds the entry from `add NAME URL` or `add NAME -- COMMAND …` and its flags. */
export function newEntry(args: CliArgs, base: string): NewEntry {
  const target = args.positionals.slice(1);
  const env = pairs('--env', strings(args.values.env));
  const headers = pairs('--header', strings(args.values.header));
  const disabled = args.values.disabled === true;
  const common = disabled ? { enabled: false } : {};
  if (target.length === 1 && URL_START.test(target[0]!)) {
    if (Object.keys(env).length > 0) throw usage('--env applies to stdio servers (add NAME -- COMMAND …); an HTTP server gets --header');
    if (args.cwd !== undefined) throw usage('--cwd applies to stdio servers (add NAME -- COMMAND …)');
    const entry = { url: target[0], ...(Object.keys(headers).length > 0 ? { headers } : {}) };
    return { kind: 'http', entry: { ...entry, ...common }, enabledEntry: entry };
  }
  const words = commandWords(target);
  const [command, ...rest] = words;
  if (command === undefined || command === '') throw usage('add needs a URL (https://…) or -- COMMAND [ARG …] after NAME');
  if (Object.keys(headers).length > 0) throw usage('--header applies to HTTP servers (add NAME URL); a stdio server gets --env');
  const entry = {
    command,
    ...(rest.length > 0 ? { args: rest } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(args.cwd === undefined ? {} : { cwd: entryCwd(args.cwd, base, args.ssh !== undefined) }),
  };
  return { kind: 'stdio', entry: { ...entry, ...common }, enabledEntry: entry };
}
