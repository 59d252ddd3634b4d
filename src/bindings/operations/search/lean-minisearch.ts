/**
 * minisearch's index, less the bookkeeping berry-mcp never reads. For every document a term
 * matches, minisearch records which derived term matched in which field (`match`, the source of
 * its results' `terms` and `match`); over 5,000 tools, with prefix and fuzzy expansion, that was a
 * third of a warm search (p50 1.7 → 1.15 ms on this machine, docs/performance.md). This class
 * replaces the one internal method that does it, `termResults`, with one that adds the same
 * scores in the same order and records the same query terms, so the ranking is minisearch's to
 * the last bit: test/bindings/lean-minisearch.test.ts compares both classes over real and
 * synthetic catalogs. It leans on minisearch's internals, so package.json pins that version.
 */
import MiniSearch from 'minisearch';

type FieldTermData = Map<number, Map<number, number>>;
interface RawResult {
  score: number;
  terms: string[];
  match: Record<string, string[]>;
}
interface Bm25 {
  readonly k: number;
  readonly b: number;
  readonly d: number;
}
/** What termResults reads of minisearch 7.2's state. */
interface Internals {
  readonly _fieldIds: Record<string, number>;
  readonly _avgFieldLength: number[];
  readonly _documentIds: Map<number, unknown>;
  readonly _fieldLength: Map<number, number[]>;
  readonly _documentCount: number;
  removeTerm(fieldId: number, documentId: number, term: string): void;
}
type TermResults = (
  this: Internals,
  sourceTerm: string,
  derivedTerm: string,
  termWeight: number,
  termBoost: number,
  fieldTermData: FieldTermData | undefined,
  fieldBoosts: Record<string, number>,
  boostDocument: unknown,
  bm25: Bm25,
  results?: Map<number, RawResult>,
) => Map<number, RawResult>;

const stock = (MiniSearch.prototype as unknown as { termResults: TermResults }).termResults;

export class LeanMiniSearch<T> extends MiniSearch<T> {}

const lean: TermResults = function (sourceTerm, derivedTerm, termWeight, termBoost, fieldTermData, fieldBoosts, boostDocument, bm25, results = new Map()) {
  // A document boost is given what `match` is built beside: minisearch's own method then (the index sets none).
  if (boostDocument) return stock.call(this, sourceTerm, derivedTerm, termWeight, termBoost, fieldTermData, fieldBoosts, boostDocument, bm25, results);
  if (fieldTermData == null) return results;
  for (const field of Object.keys(fieldBoosts)) {
    const fieldBoost = fieldBoosts[field] as number;
    const fieldId = this._fieldIds[field] as number;
    const frequencies = fieldTermData.get(fieldId);
    if (frequencies == null) continue;
    let matching = frequencies.size;
    const averageLength = this._avgFieldLength[fieldId] as number;
    for (const docId of frequencies.keys()) {
      if (!this._documentIds.has(docId)) {
        this.removeTerm(fieldId, docId, derivedTerm);
        matching -= 1;
        continue;
      }
      const fieldLength = (this._fieldLength.get(docId) as number[])[fieldId] as number;
      const rawScore = bm25Score(frequencies.get(docId) as number, matching, this._documentCount, fieldLength, averageLength, bm25);
      // The same product as minisearch's, its document boost (1) included: the same float.
      const weighted = termWeight * termBoost * fieldBoost * 1 * rawScore;
      const result = results.get(docId);
      if (result === undefined) results.set(docId, { score: weighted, terms: [sourceTerm], match: {} });
      else {
        result.score += weighted;
        if (!result.terms.includes(sourceTerm)) result.terms.push(sourceTerm);
      }
    }
  }
  return results;
};

/** minisearch's BM25+ of one term in one field, the same expression. */
function bm25Score(frequency: number, matching: number, total: number, fieldLength: number, averageLength: number, { k, b, d }: Bm25): number {
  const inverse = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
  return inverse * (d + (frequency * (k + 1)) / (frequency + k * (1 - b + (b * fieldLength) / averageLength)));
}

// minisearch declares termResults private: replaced on this class's prototype, not overridden in TypeScript.
Object.defineProperty(LeanMiniSearch.prototype, 'termResults', { value: lean, writable: true, configurable: true });
