import { editDistance } from '../../common/closest-names.js';

/** The candidates closest to `word`, best first: close edits, or names that contain it. */
export function closest(word: string, candidates: Iterable<string>, max = 3): string[] {
  const lower = word.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const other = name.toLowerCase();
    const d = editDistance(lower, other, true);
    const limit = Math.max(1, Math.floor(Math.max(lower.length, other.length) / 3));
    if (d <= limit) scored.push({ name, score: d });
    else if (Math.min(lower.length, other.length) >= 4 && (other.includes(lower) || lower.includes(other))) scored.push({ name, score: limit + 1 });
  }
  scored.sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** ` Did you mean "x"?` or `` when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>, quote: (name: string) => string = (n) => `"${n}"`): string {
  const names = closest(word, candidates);
  return names.length === 0 ? '' : ` Did you mean ${names.map(quote).join(' or ')}?`;
}
