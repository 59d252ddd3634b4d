import type { ElicitationHandler, ElicitationParams, ElicitationResult } from '../bindings/handlers.js';

/** A run in flight whose client may be asked: how to ask it, and which modes it declared. */
export interface ElicitationTarget {
  readonly modes: ReadonlySet<'form' | 'url'>;
  readonly ask: (params: ElicitationParams, signal: AbortSignal) => Promise<ElicitationResult>;
}

/**
 * Routes a downstream server's `elicitation/create` to the upstream client of a run in flight.
 * The host's connections are shared across runs, so a request cannot name its run: it goes to the
 * oldest run in flight whose client declared the mode (one client over stdio, so exact there);
 * without one it is declined.
 */
export class ElicitationRouter {
  readonly #targets: ElicitationTarget[] = [];

  /** Registers a run's client for as long as `fn` runs. */
  async during<T>(target: ElicitationTarget, fn: () => Promise<T>): Promise<T> {
    this.#targets.push(target);
    try {
      return await fn();
    } finally {
      this.#targets.splice(this.#targets.indexOf(target), 1);
    }
  }

  /** The host's `onElicitation`. */
  readonly handle: ElicitationHandler = async (params, { signal }) => {
    const mode = params.mode === 'url' ? 'url' : 'form';
    const target = this.#targets.find((t) => t.modes.has(mode));
    if (!target) return { action: 'decline' };
    return target.ask(params, signal);
  };
}

/** The elicitation modes a client declared: `elicitation: {}` means form only (spec back-compat). */
export function elicitationModes(capabilities: { elicitation?: { form?: object; url?: object } } | undefined): Set<'form' | 'url'> {
  const declared = capabilities?.elicitation;
  const modes = new Set<'form' | 'url'>();
  if (!declared) return modes;
  if (declared.form !== undefined || declared.url === undefined) modes.add('form');
  if (declared.url !== undefined) modes.add('url');
  return modes;
}
