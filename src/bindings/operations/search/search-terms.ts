/**
 * How text becomes search terms, for the tools indexed and for the query alike (minisearch's
 * `tokenize` and `processTerm`): tool names and argument names are identifiers, so `write_file`,
 * `get-sum` and `createEntities` give their words (`write`, `file`) and the whole name run
 * together (`writefile`), which a query naming the tool in any of these spellings also gives.
 * Plain English plurals fold to their singular (`entities` → `entity`), so a query need not guess
 * the number a description was written in. Linear in the text: one pass of simple patterns.
 */

/** Words of a text: runs of letters and digits, `-` and `_` kept inside identifiers. */
const WORD = /[\p{L}\p{N}]+(?:[-_]+[\p{L}\p{N}]+)*/gu;
/** Where camelCase and acronyms meet: `createEntities`, `getHTTPResponse`. */
const CAMEL_LOWER_UPPER = /(\p{Ll}|\p{N})(\p{Lu})/gu;
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu;

/**
 * Words that say nothing about what a tool does. Dropped from queries and descriptions alike, so a
 * question written as a sentence ("a tool to read the file") ranks by its content words.
 */
const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'in',
  'into',
  'is',
  'it',
  'its',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'with',
]);

/** The terms of `text` before processTerm: each word, and a compound's parts after it. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const parts = word
      .replace(CAMEL_LOWER_UPPER, '$1 $2')
      .replace(CAMEL_ACRONYM, '$1 $2')
      .split(/[-_ ]+/);
    if (parts.length > 1) terms.push(parts.join(''));
    for (const part of parts) terms.push(part);
  }
  return terms;
}

/** One term as indexed and searched: lower case, a plural folded to its singular; null drops it. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
  return singular(lower);
}

/** `entities` → `entity`, `boxes` → `box`, `files` → `file`; `class`, `status`, `analysis` stay. */
function singular(word: string): string {
  if (word.length <= 3 || !word.endsWith('s')) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:sh|ch|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}
