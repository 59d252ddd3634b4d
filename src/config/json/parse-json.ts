/**
 * JSON parsing for the config file: V8's parser for values, errors turned into a ConfigError with
 * a 1-based line and column and without the snippet of file text V8 sometimes quotes (the file may
 * hold credentials).
 */
import { ConfigError } from '../../common/errors.js';
import { scanJson, type DuplicateKey } from './json-scan.js';

/** A key given twice in one object, with where its repetition and its first occurrence are. */
export interface LocatedDuplicate extends DuplicateKey {
  readonly line: number;
  readonly column: number;
  readonly firstLine: number;
}

export interface ParsedJson {
  readonly value: unknown;
  readonly duplicates: readonly LocatedDuplicate[];
  /** Keys of the object at `orderPath`, in file order; undefined when that object is absent. */
  readonly orderedKeys: readonly string[] | undefined;
}

export interface LineColumn {
  readonly line: number;
  readonly column: number;
}

/** 1-based line and column (in UTF-16 units) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): LineColumn {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

const AT_POSITION = /^([\s\S]*?) in JSON at position (\d+)/;
const UNEXPECTED_TOKEN = /^(Unexpected token '[\s\S]{1,2}'), /;

/**
 * What V8 said, minus any quoted file text, and where. Formats seen: "<what> in JSON at position
 * N[ (line L column C)]", "Unexpected end of JSON input", "Unexpected token 'x', "…" is not
 * valid JSON" (no position: we find it ourselves).
 */
function describeSyntaxError(error: SyntaxError, text: string): { detail: string; offset: number } {
  const message = error.message;
  const positioned = AT_POSITION.exec(message);
  if (positioned !== null) {
    return { detail: positioned[1] ?? 'Syntax error', offset: Number(positioned[2]) };
  }
  if (message.startsWith('Unexpected end of JSON input')) {
    return { detail: 'Unexpected end of JSON input', offset: text.length };
  }
  const scanned = scanJson(text).errorOffset;
  const offset = scanned === -1 ? 0 : scanned;
  const token = UNEXPECTED_TOKEN.exec(message);
  return { detail: token?.[1] ?? 'Syntax error', offset };
}

/**
 * Parses the config text. Throws a ConfigError (`file`, `line`, `column`) for invalid JSON.
 * A leading byte-order mark is ignored.
 */
export function parseJson(text: string, file: string, orderPath: readonly string[] = []): ParsedJson {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const { detail, offset } = describeSyntaxError(error, body);
    const { line, column } = lineColumn(body, offset);
    throw new ConfigError(`Invalid JSON in ${file} at line ${line}, column ${column}: ${detail}. Fix the syntax and retry.`, { file, line, column });
  }
  const scan = scanJson(body, orderPath);
  const duplicates = scan.duplicates.map((duplicate): LocatedDuplicate => {
    const { line, column } = lineColumn(body, duplicate.offset);
    const firstLine = lineColumn(body, duplicate.firstOffset).line;
    return { ...duplicate, line, column, firstLine };
  });
  return { value, duplicates, orderedKeys: scan.orderedKeys };
}
