/**
 * Which store a command or host uses: `--store` / `BERRY_STORE` / `createHost({ store })` names a
 * Redis (`redis://[:password@]HOST:PORT/DB`, `rediss://` for TLS); absent or `file`, the files of
 * the target machine. A Redis store needs BERRY_STORE_KEY (it encrypts the sign-in records) and
 * refuses to start without it. The URL's password and the key never appear in an error.
 */
import { Buffer } from 'node:buffer';
import { BerryError } from '../../common/errors.js';

export const DEFAULT_STORE_PREFIX = 'berry:';

export interface RedisSelection {
  readonly url: string;
  /** The URL without its user and password: what errors and logs may name. */
  readonly shownUrl: string;
  /** Put before every key, so several fleets can share one Redis. */
  readonly prefix: string;
  /** The AES-256-GCM key of the sign-in records. */
  readonly key: Buffer;
}

export interface StoreChoice {
  /** `redis://…`, `rediss://…`, or `file` (the default). */
  readonly store?: string | undefined;
  /** @default 'berry:' */
  readonly storePrefix?: string | undefined;
}

const MAKE_KEY = 'make one with `openssl rand -base64 32` and give every process of the fleet the same one';

/** The Redis the choice names, or undefined for the file store; throws a typed error for a bad URL, prefix or key. */
export function selectRedis(choice: StoreChoice, env: NodeJS.ProcessEnv = process.env): RedisSelection | undefined {
  const raw = choice.store?.trim();
  if (raw === undefined || raw === '' || raw === 'file') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BerryError(
      'MCP_CONFIG_INVALID',
      'The store must be `file` or a Redis URL such as redis://127.0.0.1:6379/0 (from --store, BERRY_STORE or the store option).',
    );
  }
  const shownUrl = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new BerryError('MCP_CONFIG_INVALID', `The store ${url.protocol}//… is not supported: give \`file\` or redis://HOST:PORT/DB (rediss:// for TLS).`);
  }
  if (!/^\/?(\d{1,2})?$/.test(url.pathname) || url.search !== '' || url.hash !== '') {
    throw new BerryError('MCP_CONFIG_INVALID', `The store ${shownUrl} is not redis://HOST:PORT/DB: the path is a database number and nothing follows it.`);
  }
  const prefix = choice.storePrefix ?? DEFAULT_STORE_PREFIX;
  if (prefix.length > 100 || /[\s\p{Cc}]/u.test(prefix)) {
    throw new BerryError(
      'MCP_CONFIG_INVALID',
      'The store prefix (--store-prefix, BERRY_STORE_PREFIX) must be at most 100 characters with no spaces or control characters.',
    );
  }
  return { url: raw, shownUrl, prefix, key: storeKey(env['BERRY_STORE_KEY']) };
}

/** BERRY_STORE_KEY as 32 bytes (base64 or hex). The key's text is never put in the error. */
export function storeKey(text: string | undefined): Buffer {
  const value = text?.trim() ?? '';
  if (value === '') {
    throw new BerryError(
      'BERRY_STORE_KEY_INVALID',
      `A Redis store needs BERRY_STORE_KEY, the 32-byte key that encrypts the sign-in records it keeps (AES-256-GCM): ${MAKE_KEY}.`,
    );
  }
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : decodeBase64(value);
  if (key?.length !== 32) {
    throw new BerryError('BERRY_STORE_KEY_INVALID', `BERRY_STORE_KEY is not 32 bytes written in base64 or hex: ${MAKE_KEY}.`);
  }
  return key;
}

function decodeBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
