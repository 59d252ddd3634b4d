/**
 * A single pass over JSON text that records what `JSON.parse` cannot tell us: where a syntax
 * error is when V8's message gives no position, which keys occur twice in one object (JSON.parse
 * silently keeps the last), and the order of keys in one chosen object (JS objects list
 * integer-like keys first, which would reorder servers named "1", "2"), and where that object and
 * its members are in the text (so the config can be edited without reformatting it).
 */

export interface DuplicateKey {
  /** Keys and indexes from the root to the object holding the duplicate. */
  readonly path: readonly (string | number)[];
  readonly key: string;
  /** Offset of the first occurrence's opening quote. */
  readonly firstOffset: number;
  /** Offset of the repeated occurrence's opening quote. */
  readonly offset: number;
}

export interface JsonScanResult {
  /** Offset (UTF-16 units) of the first syntax error, or -1 when the text is valid JSON. */
  readonly errorOffset: number;
  readonly duplicates: readonly DuplicateKey[];
  /** Keys of the object at `orderPath` in order of first appearance; undefined when absent. */
  readonly orderedKeys: readonly string[] | undefined;
  /** Where the object at `orderPath` is (the first one, when a key repeats); undefined when absent. */
  readonly span: ObjectSpan | undefined;
}

/** Offsets (UTF-16 units) of an object and its members, duplicates included, in text order. */
export interface ObjectSpan {
  /** Offset of `{`. */
  readonly open: number;
  /** Offset of `}`; -1 when the text ends before it. */
  close: number;
  readonly members: MemberSpan[];
}

export interface MemberSpan {
  readonly key: string;
  /** Offset of the key's opening quote. */
  readonly keyOffset: number;
  /** Offset just past the member's value; -1 until the value has ended. */
  valueEnd: number;
}

interface Frame {
  readonly isObject: boolean;
  readonly onOrderPath: boolean;
  readonly recordOrder: boolean;
  /** Keys seen so far with the offset of their first occurrence (objects only). */
  keys: Map<string, number> | undefined;
  key: string;
  index: number;
  /** Offset of the opening bracket. */
  readonly open: number;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
// The characters allowed after a backslash, besides `u`: " \ / b f n r t
const isSimpleEscape = (c: number): boolean => c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;

/** Scans `text` as strict JSON (RFC 8259). `orderPath` names the object whose key order to keep. */
export function scanJson(text: string, orderPath: readonly string[] = []): JsonScanResult {
  const n = text.length;
  const stack: Frame[] = [];
  const duplicates: DuplicateKey[] = [];
  let orderedKeys: string[] | undefined;
  let span: ObjectSpan | undefined;
  let i = 0;

  const result = (errorOffset: number): JsonScanResult => ({ errorOffset, duplicates, orderedKeys, span });
  // Only the first object at orderPath has its span recorded.
  const spanned = (frame: Frame): boolean => frame.recordOrder && span?.open === frame.open;

  const skipWhitespace = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      i++;
    }
  };

  // On success `i` is just past the closing quote; on failure it points at the offending character.
  const scanString = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(text.charCodeAt(i + k))) {
            i += k;
            return false;
          }
        }
        i += 6;
      } else if (isSimpleEscape(e)) {
        i += 2;
      } else {
        i++;
        return false;
      }
    }
    return false;
  };

  const skipDigits = (): void => {
    while (isDigit(text.charCodeAt(i))) i++;
  };

  const scanNumber = (): boolean => {
    if (text.charCodeAt(i) === 0x2d) i++;
    const c = text.charCodeAt(i);
    if (c === 0x30) i++;
    else if (c >= 0x31 && c <= 0x39) skipDigits();
    else return false;
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(text.charCodeAt(i))) return false;
      skipDigits();
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(text.charCodeAt(i))) return false;
      skipDigits();
    }
    return true;
  };

  const scanLiteral = (word: string): boolean => {
    for (let k = 0; k < word.length; k++, i++) {
      if (text.charCodeAt(i) !== word.charCodeAt(k)) return false;
    }
    return true;
  };

  // A property name and its colon; leaves `i` at the start of the value.
  const scanKey = (frame: Frame): boolean => {
    const start = i;
    if (text.charCodeAt(i) !== 0x22 || !scanString()) return false;
    const raw = text.slice(start + 1, i - 1);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(start, i)) as string) : raw;
    if (spanned(frame)) span?.members.push({ key, keyOffset: start, valueEnd: -1 });
    frame.keys ??= new Map();
    const first = frame.keys.get(key);
    if (first === undefined) {
      frame.keys.set(key, start);
      if (frame.recordOrder) orderedKeys?.push(key);
    } else {
      const path = stack.slice(0, -1).map((f) => (f.isObject ? f.key : f.index));
      duplicates.push({ path, key, firstOffset: first, offset: start });
    }
    frame.key = key;
    skipWhitespace();
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    skipWhitespace();
    return true;
  };

  skipWhitespace();
  for (;;) {
    // A value starts at `i`.
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const isObject = c === 0x7b;
      const parent = stack[stack.length - 1];
      const depth = stack.length;
      const onOrderPath = parent === undefined || (parent.onOrderPath && parent.isObject && depth <= orderPath.length && parent.key === orderPath[depth - 1]);
      const recordOrder = isObject && onOrderPath && depth === orderPath.length;
      const frame: Frame = { isObject, onOrderPath, recordOrder, keys: undefined, key: '', index: 0, open: i };
      if (recordOrder) orderedKeys ??= [];
      if (recordOrder) span ??= { open: i, close: -1, members: [] };
      stack.push(frame);
      i++;
      skipWhitespace();
      if (text.charCodeAt(i) === (isObject ? 0x7d : 0x5d)) {
        if (span !== undefined && spanned(frame)) span.close = i;
        i++;
        stack.pop();
      } else if (isObject) {
        if (!scanKey(frame)) return result(i);
        continue;
      } else {
        continue;
      }
    } else if (c === 0x22) {
      if (!scanString()) return result(i);
    } else if (c === 0x2d || isDigit(c)) {
      if (!scanNumber()) return result(i);
    } else if (c === 0x74) {
      if (!scanLiteral('true')) return result(i);
    } else if (c === 0x66) {
      if (!scanLiteral('false')) return result(i);
    } else if (c === 0x6e) {
      if (!scanLiteral('null')) return result(i);
    } else {
      return result(i);
    }
    // A value just ended: close containers or move to the next element.
    for (;;) {
      const top = stack[stack.length - 1];
      const member = top !== undefined && spanned(top) ? span?.members[span.members.length - 1] : undefined;
      if (member !== undefined && member.valueEnd === -1) member.valueEnd = i;
      skipWhitespace();
      if (top === undefined) return result(i < n ? i : -1);
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        skipWhitespace();
        if (top.isObject) {
          if (!scanKey(top)) return result(i);
        } else {
          top.index++;
        }
        break;
      }
      if (d === (top.isObject ? 0x7d : 0x5d)) {
        if (span !== undefined && spanned(top)) span.close = i;
        i++;
        stack.pop();
        continue;
      }
      return result(i);
    }
  }
}
