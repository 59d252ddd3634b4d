/**
 * Sign-in records at rest in Redis: AES-256-GCM with BERRY_STORE_KEY, a random 12-byte IV per
 * write, and the Redis key name as additional data, so a record copied to another key (another
 * server's, another fleet's prefix) does not decrypt there.
 */
import { Buffer } from 'node:buffer';
import { nodeCrypto } from '../../common/lazy-node.js';
import { BerryError } from '../../common/errors.js';

const MARK = 'berry.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(key: Buffer, keyName: string, text: string): string {
  const crypto = nodeCrypto();
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyName, 'utf8'));
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return MARK + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The text sealed under `keyName` with `key`; BERRY_STORE_RECORD_INVALID when it is not that. */
export function open(key: Buffer, keyName: string, sealed: string): string {
  const raw = sealed.startsWith(MARK) ? Buffer.from(sealed.slice(MARK.length), 'base64') : Buffer.alloc(0);
  try {
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('not a sealed record');
    const decipher = nodeCrypto().createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(keyName, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new BerryError(
      'BERRY_STORE_RECORD_INVALID',
      `The sign-in record ${keyName} in the shared store does not decrypt with BERRY_STORE_KEY: the key is not the one that wrote it, or the record was changed or copied from another key. ` +
        'Give this process the fleet’s BERRY_STORE_KEY, or sign out and in again (berry-mcp auth <server> --logout, then berry-mcp auth <server>).',
    );
  }
}
