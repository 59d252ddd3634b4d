/**
 * Redaction of secrets from text shown to anyone (stderr tails, error messages, events).
 */

const MASK = '***';
const identity = (text: string): string => text;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/**
 * Returns a function that replaces every occurrence of every secret with `***`. Longer secrets are
 * tried first, so a secret containing another is masked whole. Empty secrets are ignored; with
 * none left the function returns its input unchanged. The RegExp is built once, here: the
 * returned function is meant for hot paths such as every stderr chunk.
 */
export function createRedactor(secrets: Iterable<string>): (text: string) => string {
  const unique = [...new Set(secrets)].filter((secret) => typeof secret === 'string' && secret !== '');
  if (unique.length === 0) return identity;
  unique.sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  const pattern = new RegExp(unique.map(escapeRegExp).join('|'), 'g');
  return (text: string): string => (text === '' ? text : text.replace(pattern, MASK));
}
