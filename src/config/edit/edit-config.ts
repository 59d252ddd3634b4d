/**
 * Edits the config file's text in place, for `berry-mcp add` and `remove`: one entry of
 * `mcpServers` is inserted, replaced or cut out, and every other byte (the other entries, their
 * key order, indentation, line endings, a byte-order mark) stays as it was. The file is never
 * re-serialized.
 */
import { scanJson, type ObjectSpan } from '../json/json-scan.js';
import { parseConfigFile } from '../load.js';
import { serverConfigError } from '../problems.js';
import { validateEntry } from '../validate/validate.js';

/** The text of a file that does not exist yet, before the first entry goes in. */
const NEW_FILE = '{}\n';
const DEFAULT_UNIT = '  ';

interface Body {
  readonly bom: string;
  readonly text: string;
  readonly newline: string;
}

function bodyOf(text: string): Body {
  const bom = text.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = text.slice(bom.length);
  return { bom, text: body, newline: body.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * The names in `mcpServers`, in file order (a repeated name once per occurrence). Throws the
 * ConfigError `list` would for a file that is not valid as a whole. `undefined` text: no file.
 */
export function configuredNames(text: string | undefined, file: string): string[] {
  if (text === undefined) return [];
  parseConfigFile(file, text);
  return serversSpan(bodyOf(text).text)?.members.map((m) => m.key) ?? [];
}

function serversSpan(body: string): ObjectSpan | undefined {
  return scanJson(body, ['mcpServers']).span;
}

/**
 * `text` with `"name": entry` as the last member of `mcpServers`, or in place of the existing
 * member `name` (which must occur once). `undefined` text makes a new file. An invalid entry, or a
 * file invalid as a whole, throws the ConfigError `list` would report.
 */
export function withServer(text: string | undefined, file: string, name: string, entry: unknown): string {
  const { bom, text: body, newline } = bodyOf(text ?? NEW_FILE);
  parseConfigFile(file, bom + body);
  const validation = validateEntry(name, entry);
  if (!validation.ok) throw serverConfigError(file, name, validation.problems);
  const unit = indentUnit(body);
  const servers = serversSpan(body);
  const member = (indent: string, oneLine: boolean): string => `${JSON.stringify(name)}: ${oneLine ? inline(entry) : block(entry, unit, indent, newline)}`;
  if (servers === undefined) {
    // No `mcpServers` yet: it becomes the root's last member.
    const root = scanJson(body).span!;
    const indent = memberIndent(body, root, unit);
    const inner = indent + unit;
    const object = `"mcpServers": {${newline}${inner}${member(inner, false)}${newline}${indent}}`;
    return bom + insertMember(body, root, object, indent, newline);
  }
  const existing = servers.members.findIndex((m) => m.key === name);
  const oneLine = servers.members.length > 0 && servers.members.every((m) => !body.slice(m.keyOffset, m.valueEnd).includes('\n'));
  const indent = memberIndent(body, servers, unit);
  if (existing !== -1) {
    const old = servers.members[existing]!;
    return bom + body.slice(0, old.keyOffset) + member(indent, oneLine) + body.slice(old.valueEnd);
  }
  return bom + insertMember(body, servers, member(indent, oneLine), indent, newline);
}

/** `text` without any member `name` of `mcpServers`; the others and their layout stay. */
export function withoutServer(text: string, file: string, name: string): string {
  const { bom } = bodyOf(text);
  parseConfigFile(file, text);
  let body = bodyOf(text).text;
  for (;;) {
    const servers = serversSpan(body)!;
    const members = servers.members;
    const k = members.findIndex((m) => m.key === name);
    if (k === -1) return bom + body;
    const cut: [number, number] =
      members.length === 1
        ? [servers.open + 1, servers.close]
        : k > 0
          ? [members[k - 1]!.valueEnd, members[k]!.valueEnd]
          : [members[0]!.keyOffset, members[1]!.keyOffset];
    body = body.slice(0, cut[0]) + body.slice(cut[1]);
  }
}

/** Puts `member` after the object's last member (copying the separator the others use), or into an empty object. */
function insertMember(body: string, object: ObjectSpan, member: string, indent: string, newline: string): string {
  const members = object.members;
  const last = members[members.length - 1];
  if (last === undefined) {
    const closing = lineIndent(body, object.open);
    return `${body.slice(0, object.open + 1)}${newline}${indent}${member}${newline}${closing}${body.slice(object.close)}`;
  }
  const before = members[members.length - 2];
  const separator =
    before !== undefined
      ? body.slice(before.valueEnd, last.keyOffset)
      : body.slice(object.open + 1, last.keyOffset).includes('\n')
        ? `,${newline}${indent}`
        : ', ';
  return body.slice(0, last.valueEnd) + separator + member + body.slice(last.valueEnd);
}

/** The indentation of the object's members: the first member's, else one unit past the object's line. */
function memberIndent(body: string, object: ObjectSpan, unit: string): string {
  const first = object.members[0];
  if (first !== undefined && body.slice(object.open + 1, first.keyOffset).includes('\n')) return lineIndent(body, first.keyOffset);
  return lineIndent(body, object.open) + unit;
}

/** The blanks that start the line holding `offset`. */
function lineIndent(body: string, offset: number): string {
  const start = body.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(body.slice(start, offset))![0];
}

/** The file's indentation step: the first indented line's blanks (files indent by one unit first), else two spaces. */
function indentUnit(body: string): string {
  const match = /\n([ \t]+)\S/.exec(body);
  return match?.[1] ?? DEFAULT_UNIT;
}

/** JSON over several lines, each continuation line starting with `indent`. */
function block(value: unknown, unit: string, indent: string, newline: string): string {
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(newline + indent);
}

/** JSON on one line, spaced as people write it: `{ "command": "node", "args": ["x"] }`. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return JSON.stringify(value);
}
