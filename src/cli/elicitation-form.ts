/**
 * The CLI's answer to a server's elicitation: on a terminal, a small form on stderr (each field's
 * title, type and default; Enter keeps the default; bad input is explained and asked again); off a
 * terminal, a declined elicitation and a line saying so. URL mode shows the URL and the message and
 * never opens anything itself.
 */
import type { Readable, Writable } from 'node:stream';
import type { ElicitationHandler, ElicitationParams, ElicitationResult } from '../bindings/handlers.js';

export interface ElicitationFormIo {
  readonly input: Readable & { isTTY?: boolean };
  readonly output: Writable & { isTTY?: boolean };
  /** Ask only when a person can answer. @default input.isTTY && output.isTTY */
  readonly interactive?: boolean;
}

type FormParams = Exclude<ElicitationParams, { mode: 'url' }>;
type Value = string | number | boolean | string[];

interface Field {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly required: boolean;
}

/** Elicitations are asked one at a time, in the order they arrive. */
export function createElicitationForm(io: ElicitationFormIo): ElicitationHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (params, context) => {
    const next = queue.then(() => answer(params, context.server, context.signal, io));
    queue = next.catch(() => undefined);
    return next;
  };
}

async function answer(params: ElicitationParams, server: string, signal: AbortSignal, io: ElicitationFormIo): Promise<ElicitationResult> {
  const out = (text: string): void => {
    io.output.write(text);
  };
  const interactive = io.interactive ?? (io.input.isTTY === true && io.output.isTTY === true);
  out(`\nServer "${server}" asks: ${clean(params.message)}\n`);
  if (params.mode === 'url') out(`  URL: ${clean(params.url)}\n  (berry-mcp does not open it; open it yourself if you trust it)\n`);
  if (!interactive) {
    out('  declined: not on a terminal, nobody can answer\n');
    return { action: 'decline' };
  }
  // Loaded when a server asks: readline is a few ms of every CLI start that would not use it.
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: io.input, output: io.output, terminal: io.input.isTTY === true });
  const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
  const ask = async (prompt: string): Promise<string | undefined> => {
    try {
      return await Promise.race([rl.question(prompt, { signal }), closed]);
    } catch {
      return undefined; // the server cancelled its request
    }
  };
  try {
    if (params.mode === 'url') {
      const reply = await ask('  Press Enter once done there, or type n to decline: ');
      if (reply === undefined) return { action: 'cancel' };
      return /^\s*n(o)?\s*$/i.test(reply) ? { action: 'decline' } : { action: 'accept' };
    }
    return await fillForm(params, ask, out);
  } finally {
    rl.close();
  }
}

async function fillForm(params: FormParams, ask: (prompt: string) => Promise<string | undefined>, out: (text: string) => void): Promise<ElicitationResult> {
  const schema = params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const fields: Field[] = Object.entries(schema.properties).map(([name, property]) => ({
    name,
    schema: property as Record<string, unknown>,
    required: required.has(name),
  }));
  const go = await ask('  Answer? [Y/n] ');
  if (go === undefined) return { action: 'cancel' };
  if (/^\s*n(o)?\s*$/i.test(go)) return { action: 'decline' };
  out('  (Enter keeps the default; Ctrl-D cancels)\n');
  const content: Record<string, Value> = {};
  for (const field of fields) {
    for (;;) {
      const line = await ask(`  ${describeField(field)}: `);
      if (line === undefined) return { action: 'cancel' };
      const parsed = parseValue(field, line.trim());
      if (parsed.kind === 'value') {
        content[field.name] = parsed.value;
        break;
      }
      if (parsed.kind === 'skip') break;
      out(`    ${parsed.kind === 'missing' ? 'this field is required' : parsed.problem}; try again\n`);
    }
  }
  return { action: 'accept', content };
}

type Parsed =
  | { readonly kind: 'value'; readonly value: Value }
  | { readonly kind: 'skip' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'invalid'; readonly problem: string };

/** One answer checked against the field's schema. */
export function parseValue(field: Field, text: string): Parsed {
  const s = field.schema;
  if (text === '') {
    if (s['default'] !== undefined) return { kind: 'value', value: s['default'] as Value };
    return field.required ? { kind: 'missing' } : { kind: 'skip' };
  }
  const options = enumOptions(s);
  switch (s['type']) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { kind: 'value', value: true };
      if (/^(n|no|false)$/i.test(text)) return { kind: 'value', value: false };
      return { kind: 'invalid', problem: 'answer y or n' };
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n)) return { kind: 'invalid', problem: 'not a number' };
      if (s['type'] === 'integer' && !Number.isInteger(n)) return { kind: 'invalid', problem: 'not a whole number' };
      if (typeof s['minimum'] === 'number' && n < s['minimum']) return { kind: 'invalid', problem: `at least ${s['minimum']}` };
      if (typeof s['maximum'] === 'number' && n > s['maximum']) return { kind: 'invalid', problem: `at most ${s['maximum']}` };
      return { kind: 'value', value: n };
    }
    case 'array': {
      const items = text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      const allowed = enumOptions((s['items'] ?? {}) as Record<string, unknown>);
      const bad = allowed ? items.filter((item) => !allowed.includes(item)) : [];
      if (bad.length > 0) return { kind: 'invalid', problem: `not among the choices: ${bad.join(', ')}` };
      if (typeof s['minItems'] === 'number' && items.length < s['minItems']) return { kind: 'invalid', problem: `choose at least ${s['minItems']}` };
      if (typeof s['maxItems'] === 'number' && items.length > s['maxItems']) return { kind: 'invalid', problem: `choose at most ${s['maxItems']}` };
      return { kind: 'value', value: items };
    }
    default: {
      if (options && !options.includes(text)) return { kind: 'invalid', problem: `choose one of ${options.join(', ')}` };
      if (typeof s['minLength'] === 'number' && text.length < s['minLength']) return { kind: 'invalid', problem: `at least ${s['minLength']} characters` };
      if (typeof s['maxLength'] === 'number' && text.length > s['maxLength']) return { kind: 'invalid', problem: `at most ${s['maxLength']} characters` };
      if (s['format'] === 'email' && !/^[^@\s]+@[^@\s]+$/.test(text)) return { kind: 'invalid', problem: 'not an email address' };
      return { kind: 'value', value: text };
    }
  }
}

/** `Name (string, default "John Doe")`, with the choices of an enum. */
function describeField(field: Field): string {
  const s = field.schema;
  const title = typeof s['title'] === 'string' ? s['title'] : field.name;
  const type = typeof s['type'] === 'string' ? s['type'] : 'string';
  const parts = [type === 'array' ? 'comma-separated list' : type];
  const options = enumOptions(s) ?? enumOptions((s['items'] ?? {}) as Record<string, unknown>);
  if (options) parts.push(`one of ${options.join(' | ')}`);
  if (type === 'boolean') parts.push('y/n');
  if (s['default'] !== undefined) parts.push(`default ${JSON.stringify(s['default'])}`);
  else if (field.required) parts.push('required');
  const description = typeof s['description'] === 'string' ? ` – ${clean(s['description'])}` : '';
  return `${clean(title)}${description} (${parts.join(', ')})`;
}

function enumOptions(schema: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(schema['enum'])) return schema['enum'].map(String);
  const oneOf = schema['oneOf'] ?? schema['anyOf'];
  if (Array.isArray(oneOf)) {
    const values = oneOf.map((o: { const?: unknown }) => o?.const).filter((v) => v !== undefined);
    return values.length > 0 ? values.map(String) : undefined;
  }
  return undefined;
}

/** Server text on a terminal: no control characters (escape sequences), one line. */
function clean(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b./g, '')
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .slice(0, 500);
}
