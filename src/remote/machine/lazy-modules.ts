import type * as Ssh2 from 'ssh2';
import type * as Undici from 'undici';
import { onFirstUse } from '../../common/lazy-node.js';

// Loaded on first use: a one-shot stdio call needs neither, and they cost ~0.2 s and ~0.15 s of start-up.
export const loadUndici = onFirstUse<typeof Undici>('undici');
export const loadSsh2 = onFirstUse<typeof Ssh2>('ssh2');
