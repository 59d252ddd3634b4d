import { createRequire } from 'node:module';
import type * as Ssh2 from 'ssh2';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
let undici: typeof Undici | undefined;
let ssh2: typeof Ssh2 | undefined;

// Loaded on first use: a one-shot stdio call needs neither, and they cost ~0.2 s and ~0.15 s of start-up.
export function loadUndici(): typeof Undici {
  undici ??= require('undici') as typeof Undici;
  return undici;
}

export function loadSsh2(): typeof Ssh2 {
  ssh2 ??= require('ssh2') as typeof Ssh2;
  return ssh2;
}
