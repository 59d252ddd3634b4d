import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { type Context, context } from '@opentelemetry/api';
import { parentContext } from '../bindings/telemetry/index.js';
import { isBerryError } from '../common/errors.js';
import type { Host } from '../host.js';
import type { RunState } from '../runtime/index.js';
import { approveThrough } from './confirm-writes.js';
import { clip, type DescriptionLimits } from './description/description.js';
import type { ElicitationRouter, ElicitationTarget } from './elicitation.js';
import { ProgressReporter } from './progress.js';
import type { RunClient, RunQueue } from './queue.js';
import { runResult } from './result.js';
import type { RunArguments } from './validate.js';
import type { RunExecutor } from './workers/executor.js';

/** What every run of a serve shares, in both eras: the host, the queue, the limits. */
export interface RunExecution {
  readonly host: Host;
  readonly queue: RunQueue;
  readonly limits: DescriptionLimits;
  readonly confirmWrites: boolean;
  /** RunOptions.check of every run. */
  readonly check: 'calls' | 'off';
  /** Where the scripts run (executor.ts): the worker pool's runScript, or nothing for this thread. */
  readonly runOptions: RunExecutor['runOptions'];
}

/**
 * Runs `parsed` for `client` once the queue lets it, as a tool result; never rejects. Its client
 * is asked (elicitation, --confirm-writes) through `target`, its progress goes to `reporter`.
 */
export async function executeRun(
  execution: RunExecution,
  client: RunClient,
  parsed: RunArguments,
  target: ElicitationTarget,
  elicitation: ElicitationRouter,
  signal: AbortSignal,
  reporter: ProgressReporter,
  /** The conversation's store/load state, and the trace this run continues. */
  { state, parent }: { readonly state?: RunState | undefined; readonly parent?: Context | undefined } = {},
): Promise<CallToolResult> {
  const { host, queue, limits } = execution;
  const progress = (message: string): void => reporter.report(message);
  try {
    const record = await queue.run(
      client,
      () =>
        elicitation.during(target, () =>
          // The run continues the client's trace (its request's _meta, or its HTTP headers).
          runIn(parent, () =>
            host.run(parsed.code, {
              // The queue's client is the run's: it sees only result types its own calls taught.
              client,
              signal,
              check: execution.check,
              timeoutMs: (parsed.timeoutSeconds ?? limits.defaultTimeoutSeconds) * 1000,
              memoryLimitMb: limits.memoryLimitMb,
              outputLimitBytes: limits.outputLimitBytes,
              ...(state === undefined ? {} : { state }),
              ...execution.runOptions,
              ...(execution.confirmWrites ? { approveCall: approveThrough(target, signal) } : {}),
              onElicitation: elicitation.handle,
              onProgress: (p) => progress(p.message ?? `${p.fn} ${p.progress}${p.total === undefined ? '' : `/${p.total}`}`),
              onOutput: (entry) => {
                if (entry.kind === 'output' && entry.output.type === 'text') progress(clip(entry.output.text, 200));
              },
            }),
          ),
        ),
      signal,
    );
    return runResult(record);
  } catch (error) {
    // Only the queue rejects (cancelled while waiting, or full): host.run reports everything in its record.
    return { content: [{ type: 'text', text: isBerryError(error) ? `${error.message} [${error.code}]` : String(error) }], isError: true };
  }
}

/**
 * Progress of one run, sent with the progress token of the request that `leg` names now (a 2026
 * run answers several legs, each with its own token); nothing when it carries none.
 */
export function progressOf(leg: () => ServerContext | undefined): ProgressReporter {
  return new ProgressReporter((progress, message) => {
    const ctx = leg();
    const progressToken = ctx?.mcpReq._meta?.progressToken;
    if (ctx === undefined || progressToken === undefined) return;
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => {});
  });
}

/** The trace context a `run` request continues: its `_meta`'s, else its HTTP request's headers'. */
export function traceParentOf(meta: unknown, ctx: ServerContext): Context {
  return parentContext(meta, ctx.http?.req?.headers);
}

function runIn<T>(parent: Context | undefined, fn: () => T): T {
  return parent === undefined ? fn() : context.with(parent, fn);
}
