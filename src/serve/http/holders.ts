import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { HttpLimits } from './http-limits.js';
import type { RunClient, RunHolder } from '../queue.js';

/** A bearer token of serve --http and the name its holder goes by (in messages, never the token). */
export interface ServeToken {
  readonly name: string;
  readonly token: string;
}

/**
 * One token's holder: its runs' cap, its one 2026-07-28 client (no 2026 request carries anything
 * that could tell its clients apart but what they choose to say), and its open listen streams.
 */
export interface Holder {
  readonly name: string;
  readonly run: RunHolder;
  readonly modern: RunClient;
  streams: number;
}

/** Most tokens a --token-file may name (each is compared on every request). */
const MOST_TOKENS = 1024;
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Visible ASCII, as a header value carries it; long enough not to be guessed. */
const TOKEN = /^[\x21-\x7e]{16,512}$/;

/**
 * The tokens of a --token-file: one `NAME TOKEN` per line; blank lines and lines starting with `#`
 * are skipped. Names and tokens are unique. An error names the line, never its text.
 */
export function parseServeTokens(text: string, source: string): ServeToken[] {
  const tokens: ServeToken[] = [];
  const names = new Set<string>();
  const seen = new Set<string>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const where = `${source} line ${index + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length !== 2)
      throw new Error(`${where}: expected NAME TOKEN (two fields separated by blanks), got ${fields.length} field${fields.length === 1 ? '' : 's'}`);
    const [name, token] = fields as [string, string];
    if (!NAME.test(name)) throw new Error(`${where}: a name is 1 to 64 letters, digits, ".", "_" or "-"`);
    if (!TOKEN.test(token)) throw new Error(`${where}: a token is 16 to 512 visible ASCII characters (e.g. openssl rand -base64 32)`);
    if (names.has(name)) throw new Error(`${where}: the name "${name}" is given twice`);
    if (seen.has(token)) throw new Error(`${where}: this token is given twice (each holder needs its own)`);
    names.add(name);
    seen.add(token);
    tokens.push({ name, token });
    if (tokens.length > MOST_TOKENS) throw new Error(`${source}: more than ${MOST_TOKENS} tokens`);
  }
  if (tokens.length === 0) throw new Error(`${source}: no tokens (one NAME TOKEN per line)`);
  return tokens;
}

/** The holders of serve --http, one per token: who sent a request, and what each holds. */
export class Holders {
  readonly limits: HttpLimits;
  readonly #holders: { readonly digest: Buffer; readonly holder: Holder }[];

  constructor(tokens: readonly ServeToken[], limits: HttpLimits) {
    this.limits = limits;
    this.#holders = tokens.map(({ name, token }) => {
      const run: RunHolder = { name, maxRunning: limits.maxHolderConcurrency };
      return { digest: digest(`Bearer ${token}`), holder: { name, run, modern: this.client(run), streams: 0 } };
    });
  }

  get size(): number {
    return this.#holders.length;
  }

  /** The holder whose token `authorization` carries; every token is compared, in constant time, whichever matches. */
  authenticate(authorization: string | undefined): Holder | undefined {
    const presented = digest(authorization ?? '');
    let found: Holder | undefined;
    for (const { digest: expected, holder } of this.#holders) {
      if (timingSafeEqual(presented, expected)) found = holder;
    }
    return found;
  }

  /** A new client of `holder` (a 2025 session) with the per-client cap. */
  client(holder: RunHolder): RunClient {
    return { holder, maxRunning: this.limits.maxClientConcurrency };
  }

  /** Counts `res` as one of `holder`'s open streams until it closes; false (nothing counted) when it has its cap open. */
  openStreams(holder: Holder, count: number, res: ServerResponse): boolean {
    if (count === 0) return true;
    if (holder.streams + count > this.limits.maxHolderStreams) return false;
    holder.streams += count;
    res.once('close', () => (holder.streams -= count));
    return true;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
