/**
 * amaro (Node's own type stripper: swc compiled to WebAssembly) behind one function. Loaded on the
 * first TypeScript script only: a JavaScript run never pays its ~40 ms. Its `engines` says Node 22,
 * but strip-only mode needs nothing Node 22 has (docs/node-versions.md).
 */
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';

/** What amaro throws for code it refuses; lines 1-based, columns 0-based in display width (a tab is 4). */
export interface SwcError {
  readonly code: 'UnsupportedSyntax' | 'InvalidSyntax';
  readonly message: string;
  readonly startLine: number;
  readonly startColumn: number;
}

export type AmaroAnswer = { readonly code: string } | { readonly refused: SwcError } | { readonly crashed: string } | { readonly unavailable: string };

interface Amaro {
  transformSync(code: string, options: { readonly mode: 'strip-only' }): { readonly code: string };
}

/** Past this many characters an instance is dropped after use: its WebAssembly memory never shrinks. */
const LARGE_INPUT_CHARS = 256 * 1024;

let instance: Amaro | undefined;

/**
 * Strips `code` in strip-only mode. A crash of the WebAssembly module (its stack overflows on
 * deeply nested code, and then every later call fails with "memory access out of bounds") drops
 * the instance: the next call loads a fresh one.
 */
export function stripWithAmaro(code: string): AmaroAnswer {
  let amaro: Amaro;
  try {
    amaro = load();
  } catch (error) {
    return { unavailable: messageOf(error) };
  }
  try {
    return { code: amaro.transformSync(code, { mode: 'strip-only' }).code };
  } catch (error) {
    if (isSwcError(error)) return { refused: error };
    drop();
    return { crashed: messageOf(error) };
  } finally {
    if (code.length > LARGE_INPUT_CHARS) drop();
  }
}

function load(): Amaro {
  if (instance !== undefined) return instance;
  // A fresh require each time: the old module then has no parent keeping its instance alive.
  const require = createRequire(import.meta.url);
  instance = require('amaro') as Amaro;
  return instance;
}

/** Forgets the instance and amaro's modules, so that the next load instantiates the module anew. */
function drop(): void {
  if (instance === undefined) return;
  instance = undefined;
  const require = createRequire(import.meta.url);
  const folder = dirname(require.resolve('amaro')) + sep;
  for (const key of Object.keys(require.cache)) if (key.startsWith(folder)) delete require.cache[key];
}

function isSwcError(error: unknown): error is SwcError {
  const e = error as Partial<SwcError> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    (e.code === 'UnsupportedSyntax' || e.code === 'InvalidSyntax') &&
    typeof e.message === 'string' &&
    typeof e.startLine === 'number' &&
    typeof e.startColumn === 'number'
  );
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n', 1)[0]!.slice(0, 300);
}
