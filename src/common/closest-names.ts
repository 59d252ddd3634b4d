/** "Did you mean": candidate names ordered closest first, for errors that name what exists. */

/** At most this many names in a message; the rest are counted. */
const MAX_NAMED = 20;

/** Every candidate, closest to `wanted` first (ties keep their order). */
export function closestFirst(wanted: string, candidates: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  return candidates
    .map((name, index) => ({ name, index, score: score(lower, name.toLowerCase()) }))
    .sort((a, b) => a.score - b.score || a.index - b.index)
    .map((entry) => entry.name);
}

/** `a, b, c and 12 more`, closest first; `(none)` for an empty list. */
export function nameList(wanted: string, candidates: readonly string[]): string {
  if (candidates.length === 0) return '(none)';
  const ordered = closestFirst(wanted, candidates);
  const shown = ordered.slice(0, MAX_NAMED).join(', ');
  return ordered.length > MAX_NAMED ? `${shown} and ${ordered.length - MAX_NAMED} more` : shown;
}

/** Edit distance, with containment counted as close (`list_dir` ~ `list_directory`). */
function score(wanted: string, name: string): number {
  // Long names are told apart by length alone: no quadratic table for a pasted paragraph.
  const long = wanted.length > 200 || name.length > 200;
  const distance = long ? Math.abs(wanted.length - name.length) + 200 : editDistance(wanted, name);
  if (name.includes(wanted) || wanted.includes(name)) return Math.min(distance, Math.abs(name.length - wanted.length) / 4);
  return distance;
}

/**
 * Levenshtein distance between `a` and `b`; with `swaps`, a swap of two neighbours counts as one
 * edit too (optimal string alignment: the CLI's typo check).
 */
export function editDistance(a: string, b: string, swaps = false): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
