/**
 * Masks the secrets a sign-in record holds (its tokens, the registered client's secret) in errors
 * and logs: a server may echo a token back in an error body. Rebuilt only when the record changes.
 */
import { createRedactor } from '../config/index.js';
import type { SignInRecord } from './token-store.js';

export function recordRedactor(): (record: SignInRecord | undefined, text: string) => string {
  let madeFor: SignInRecord | undefined;
  let redactor: (text: string) => string = (text) => text;
  return (record, text) => {
    if (record !== madeFor) {
      madeFor = record;
      const secrets = [record?.tokens?.access_token, record?.tokens?.refresh_token, record?.tokens?.id_token, record?.client?.client_secret];
      redactor = createRedactor(secrets.filter((v): v is string => typeof v === 'string' && v.length >= 4));
    }
    return redactor(text);
  };
}
