/**
 * Redaction of secrets from text shown to anyone (stderr tails, error messages, events), in every
 * form a secret takes on its way there: percent-encoded (either hex case, any subset of characters:
 * URL userinfo, path, query, encodeURIComponent), form-encoded (`+` for space), JSON-escaped (at
 * any depth), with a different case (host names are lowercased), and base64 (Basic auth). Text
 * that was cut (a stderr tail, a long line in pieces) may start with the end of a secret or end
 * with its start: such fragments are masked too.
 */
import { Buffer } from 'node:buffer';
import type { ServerSlot } from '../types.js';

const MASK = '***';
/** Shorter fragments at a cut are too common to mask and say too little to matter. */
const MIN_FRAGMENT = 3;
/** Base64 forms shorter than this are left alone: they match too much ordinary text. */
const MIN_BASE64 = 8;
const identity = (text: string): string => text;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** Every way one character of a secret can be written; case-insensitive matching does the rest. */
function characterPattern(ch: string): string {
  const forms = new Set<string>();
  if (ch === '"') forms.add('\\\\*"');
  // A URL parser turns \ into / in a path.
  else if (ch === '\\') forms.add('\\\\+|/');
  else forms.add(escapeRegExp(ch));
  forms.add([...Buffer.from(ch, 'utf8')].map((byte) => `%${hex(byte, 2)}`).join(''));
  if (ch === ' ') forms.add('\\+');
  if (ch === '/') forms.add('\\\\+/');
  const json = JSON.stringify(ch).slice(1, -1);
  if (json.length > 1 && json[0] === '\\' && ch !== '"' && ch !== '\\') forms.add(`\\\\+${escapeRegExp(json.slice(1))}`);
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || code > 0x7e) {
    // JSON with non-ASCII escaped: one \uXXXX per UTF-16 unit.
    let units = '';
    for (let i = 0; i < ch.length; i++) units += `\\\\+u${hex(ch.charCodeAt(i), 4)}`;
    forms.add(units);
  }
  return forms.size === 1 ? [...forms][0]! : `(?:${[...forms].join('|')})`;
}

/** Base64 of the secret at each of the three byte alignments, without the edge characters that depend on neighbours. */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const form = encoded.slice(start, end);
    if (form.length >= MIN_BASE64) forms.push(form);
  }
  return forms;
}

function secretPattern(secret: string): string {
  const plain = [...secret].map(characterPattern).join('');
  return [plain, ...base64Forms(secret).map(escapeRegExp)].join('|');
}

/**
 * What every rendering of the secret contains: no encoding above touches ASCII letters and digits,
 * so its longest run of them (or, for base64, the form itself). Undefined when it has none.
 */
function secretHints(secret: string): string[] | undefined {
  const runs = secret.match(/[A-Za-z0-9]+/g);
  if (runs === null) return undefined;
  const core = runs.reduce((a, b) => (b.length > a.length ? b : a));
  return [core, ...base64Forms(secret)];
}

export interface RedactorOptions {
  /**
   * Also mask a start of the text that is the end of a secret and an end that is its start, for
   * text that was cut (a stderr tail). Off for whole values, where it would mask ordinary words.
   * @default true
   */
  readonly fragments?: boolean;
}

/**
 * Returns a function that replaces every occurrence of every secret, in any of the forms above,
 * with `***`. Longer secrets are tried first, so a secret containing another is masked whole.
 * Empty secrets are ignored; with none left the function returns its input unchanged. The RegExp
 * is built once, here: the returned function is meant for hot paths such as every stderr chunk.
 */
export function createRedactor(secrets: Iterable<string>, options: RedactorOptions = {}): (text: string) => string {
  const unique = [...new Set(secrets)].filter((secret) => typeof secret === 'string' && secret !== '');
  if (unique.length === 0) return identity;
  unique.sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  // A secret's full pattern costs ~0.1 µs per character, all of them together ~1 µs: a literal
  // search for what every rendering must contain rules most text out first, then each secret's
  // own hint picks the few full patterns worth running (a secret without letters or digits has
  // no hint: its full pattern is its test).
  const each = unique.map((secret) => {
    const hints = secretHints(secret);
    return { hint: hints && new RegExp(hints.map(escapeRegExp).join('|'), 'i'), full: new RegExp(secretPattern(secret), 'gi') };
  });
  const quick = new RegExp(
    [
      ...fewestHints(unique.flatMap((secret) => secretHints(secret) ?? [])).map(escapeRegExp),
      ...unique.filter((secret) => !secretHints(secret)).map(secretPattern),
    ].join('|'),
    'i',
  );
  const lowered = options.fragments === false ? [] : unique.map((secret) => secret.toLowerCase()).filter((secret) => secret.length > MIN_FRAGMENT);
  return (text: string): string => {
    if (text === '') return text;
    let masked = text;
    // Percent-encoding may spell letters and digits too (%73%6B…): hints are looked for decoded as well.
    const decoded = text.includes('%') ? percentDecoded(text) : undefined;
    if (quick.test(text) || (decoded !== undefined && quick.test(decoded))) {
      // Longest first, so a secret containing another is masked whole.
      for (const { hint, full } of each) {
        if (hint === undefined || hint.test(masked) || (decoded !== undefined && hint.test(decoded))) masked = masked.replace(full, MASK);
      }
    }
    return maskFragments(masked, lowered);
  };
}

/** `text` with each %XX as the character of that byte (enough to find ASCII hints), or undefined when it has none. */
function percentDecoded(text: string): string | undefined {
  const decoded = text.replace(/%([0-9a-f]{2})/gi, (_, hexByte: string) => String.fromCharCode(parseInt(hexByte, 16)));
  return decoded === text ? undefined : decoded;
}

/** Hints without those that contain another (case-insensitively): text holding the longer holds the shorter. */
function fewestHints(hints: readonly string[]): string[] {
  const kept: string[] = [];
  for (const hint of [...new Set(hints.map((h) => h.toLowerCase()))].sort((a, b) => a.length - b.length)) {
    if (!kept.some((shorter) => hint.includes(shorter))) kept.push(hint);
  }
  return kept;
}

/** Masks a start of `text` that is the end of a secret, and an end of `text` that is a start of one. */
function maskFragments(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text.length < MIN_FRAGMENT) return text;
  // Secrets are sorted longest first; only this much of each end can hold a fragment.
  const reach = Math.min(secrets[0]!.length, text.length);
  const start = text.slice(0, reach).toLowerCase();
  const end = text.slice(text.length - reach).toLowerCase();
  let head = 0;
  let tail = text.length;
  for (const secret of secrets) {
    const longest = Math.min(secret.length - 1, reach);
    for (let n = longest; n >= MIN_FRAGMENT && n > head; n--) {
      if (secret.endsWith(start.slice(0, n))) {
        head = n;
        break;
      }
    }
    for (let n = longest; n >= MIN_FRAGMENT && text.length - n < tail; n--) {
      if (secret.startsWith(end.slice(reach - n))) {
        tail = text.length - n;
        break;
      }
    }
  }
  if (head === 0 && tail === text.length) return text;
  if (head >= tail) return MASK;
  return (head > 0 ? MASK : '') + text.slice(head, tail) + (tail < text.length ? MASK : '');
}

/** Every secret of every server of a loaded config: any server's output may show another's. */
export function secretsOfServers(servers: readonly ServerSlot[]): string[] {
  const all = new Set<string>();
  for (const slot of servers) if (slot.status === 'ok') for (const secret of slot.config.secrets) all.add(secret);
  return [...all];
}

/** Shorter values are too common in ordinary results ("true", a port, a name) to mask there. */
const MIN_VALUE_SECRET = 8;
/** Up to this length, a few plain words (`production`, `literal value`) are ordinary text. */
const MAX_PLAIN_WORDS = 20;
const PLAIN_WORDS = /^[A-Z]?[a-z]+(?:[ _.-][A-Z]?[a-z]+)*$/;
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;
const FILE_PATH = /^(?:~|\.{1,2})?\/[\w./@%~-]*$/;

/**
 * Whether a secret is masked inside whole values servers return (results, resources, prompts),
 * not only in logs and errors: at least 8 characters, and not a plain number, a file path (a
 * `${HOME}` in args or cwd) or a short phrase of plain words: masking those would corrupt
 * ordinary data far more often than hide a secret.
 */
export function maskedInValues(secret: string): boolean {
  if (secret.length < MIN_VALUE_SECRET || PLAIN_NUMBER.test(secret) || FILE_PATH.test(secret)) return false;
  return secret.length >= MAX_PLAIN_WORDS || !PLAIN_WORDS.test(secret);
}
