import type IsolatedVm from 'isolated-vm';
import { BerryError } from '../errors.js';

export type Ivm = typeof IsolatedVm;

let loading: Promise<Ivm> | undefined;

/**
 * Loads the native isolated-vm module on first use, so the rest of berry-mcp works (and says
 * why) when it is missing or built for another Node.
 */
export function loadIsolatedVm(): Promise<Ivm> {
  loading ??= import('isolated-vm').then(
    (mod) => mod.default,
    (cause: unknown) => {
      loading = undefined;
      throw new BerryError(
        'SCRIPT_SETUP_FAILED',
        `isolated-vm could not be loaded on Node ${process.version}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
          'Install the version that matches your Node (5 for Node 20, 6 for Node 22, 7 for Node 24) with a fresh `npm install`.',
        { cause },
      );
    },
  );
  return loading;
}
