/**
 * The `oauth` block of an HTTP entry, checked strictly (unknown keys and wrong types are
 * problems) but not expanded: `${VAR}` in its strings is resolved later with the rest of the entry.
 */
import { indexPath, isJsonObject, jsonTypeName, memberPath } from '../json/json-path.js';
import type { ResolvedOAuthConfig } from '../types.js';

/** The same fields as the resolved block; its strings may still hold `${VAR}`. */
export type ValidOAuthBlock = ResolvedOAuthConfig;

const STRING_KEYS = ['clientId', 'clientSecret', 'privateKey', 'privateKeyFile', 'clientMetadataUrl'] as const;
const ALLOWED_KEYS = [...STRING_KEYS, 'signingAlgorithm', 'scopes', 'grant', 'redirectPort'];
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
// RFC 6749 scope-token: printable ASCII except space, '"' and '\'.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function validateOAuthBlock(value: unknown, path: string, report: (jsonPath: string, text: string) => void): ValidOAuthBlock | undefined {
  if (!isJsonObject(value)) {
    report(path, `must be an object like {"clientId": "..."} (every key optional), got ${jsonTypeName(value)}`);
    return undefined;
  }
  const out: { -readonly [K in keyof ValidOAuthBlock]: ValidOAuthBlock[K] } = { grant: 'authorization_code' };
  for (const key of Object.keys(value)) {
    const item = value[key];
    const itemPath = memberPath(path, key);
    if ((STRING_KEYS as readonly string[]).includes(key)) {
      if (typeof item === 'string' && item !== '') out[key as (typeof STRING_KEYS)[number]] = item;
      else report(itemPath, `must be a non-empty string, got ${typeof item === 'string' ? 'an empty string' : jsonTypeName(item)}`);
      continue;
    }
    switch (key) {
      case 'signingAlgorithm':
        if (typeof item === 'string' && SIGNING_ALGORITHMS.includes(item)) out.signingAlgorithm = item;
        else report(itemPath, `must be one of ${SIGNING_ALGORITHMS.join(', ')}, got ${typeof item === 'string' ? JSON.stringify(item) : jsonTypeName(item)}`);
        break;
      case 'grant':
        if (item === 'authorization_code' || item === 'client_credentials') out.grant = item;
        else
          report(itemPath, `must be "authorization_code" or "client_credentials", got ${typeof item === 'string' ? JSON.stringify(item) : jsonTypeName(item)}`);
        break;
      case 'redirectPort':
        if (typeof item === 'number' && Number.isInteger(item) && item >= 1 && item <= 65_535) out.redirectPort = item;
        else report(itemPath, `must be a port number from 1 to 65535, got ${typeof item === 'number' ? String(item) : jsonTypeName(item)}`);
        break;
      case 'scopes':
        if (!Array.isArray(item)) {
          report(itemPath, `must be an array of scope names, got ${jsonTypeName(item)}`);
          break;
        }
        item.forEach((scope: unknown, index) => {
          if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
            report(
              indexPath(itemPath, index),
              `must be a scope name (no spaces or quotes), got ${typeof scope === 'string' ? JSON.stringify(scope) : jsonTypeName(scope)}`,
            );
          }
        });
        out.scopes = item as string[];
        break;
      default:
        report(itemPath, `is not a known key. Allowed keys: ${ALLOWED_KEYS.join(', ')}`);
    }
  }
  if (out.privateKey !== undefined && out.privateKeyFile !== undefined) {
    report(memberPath(path, 'privateKeyFile'), 'cannot be used together with "privateKey"; keep one');
  }
  const hasKey = out.privateKey !== undefined || out.privateKeyFile !== undefined;
  if (hasKey && out.clientSecret !== undefined) {
    report(memberPath(path, 'clientSecret'), 'cannot be used together with a private key; the client authenticates with one or the other');
  }
  if ((hasKey || out.clientSecret !== undefined) && out.clientId === undefined) {
    report(memberPath(path, 'clientId'), 'is required with "clientSecret" or a private key; add the client ID the authorization server issued');
  }
  if (out.grant === 'client_credentials' && (out.clientId === undefined || (!hasKey && out.clientSecret === undefined))) {
    report(memberPath(path, 'grant'), 'is "client_credentials", which needs "clientId" and "clientSecret" (or "privateKey"/"privateKeyFile")');
  }
  if (out.signingAlgorithm !== undefined && !hasKey) {
    report(memberPath(path, 'signingAlgorithm'), 'applies only with "privateKey" or "privateKeyFile"');
  }
  return out;
}
