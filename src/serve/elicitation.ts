import type { ElicitationHandler, ElicitationParams, ElicitationResult } from '../bindings/handlers.js';

/** A run in flight whose client may be asked: how to ask it, and which modes it declared. */
export interface ElicitationTarget {
  readonly modes: ReadonlySet<'form' | 'url'>;
  readonly ask: (params: ElicitationParams, signal: AbortSignal) => Promise<ElicitationResult>;
}

/**
 * One client session's answer to a downstream server's `elicitation/create`, the `onElicitation`
 * of each of its runs: the host attributes a request to the run whose call caused it (and declines
 * one it cannot attribute), so only this client is ever asked. It is asked through its oldest run
 * in flight (on that run's own response stream over HTTP) when it declared the mode; else declined.
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
