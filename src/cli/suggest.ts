/** Edit distance (insert, delete, substitute, swap of neighbours) between two short strings. */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]![j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidates closest to `word`, best first: close edits, or names that contain it. */
export function closest(word: string, candidates: Iterable<string>, max = 3): string[] {
  const lower = word.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const other = name.toLowerCase();
    const d = distance(lower, other);
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
