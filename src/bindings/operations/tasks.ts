/**
 * Task-augmented tool calls (MCP tasks, protocol 2025-11-25): a tool whose
 * `execution.taskSupport` is `required` or `optional` is called with a `task` param, its status is
 * polled at the server's `pollInterval`, progress and status messages reach `onProgress`, and the
 * script gets the ordinary `tools/call` result from `tasks/result`. An abort or the deadline sends
 * `tasks/cancel`. The deadline covers the whole task: the entry's `timeout`, counted from the start.
 */
import { specTypeSchemas, type CallToolResult } from '@modelcontextprotocol/client';
import { BerryError, CallTimeoutError, CancelledError } from '../../common/errors.js';
import { onAbort, sleep } from '../../common/abort.js';
import type { CallOptions, ServerConnection } from '../connection/connection.js';
import { RequestOwners } from '../connection/request-owners.js';
import { CallScope } from '../connection/requests.js';
import { taskProgressToken } from '../connection/task-progress.js';

/** Bounds on the server's poll interval: never a busy loop, never a nap past a short task. */
const MIN_POLL_MS = 20;
const MAX_POLL_MS = 5000;
const DEFAULT_POLL_MS = 500;
/** tasks/cancel is best effort: it must not hold up the caller's rejection for long. */
const CANCEL_TIMEOUT_MS = 2000;

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** True when the call must go through tasks: the tool asks for it and the server can run tasks. */
export async function callToolAsTask(
  connection: ServerConnection,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<CallToolResult> {
  const { config, client } = connection;
  const timeoutMs = config.timeoutMs;
  const server = options.server ?? config.name;
  const label = `Task call of "${tool}" on server "${server}"`;
  const ac = new CallScope(options.signal, () => new CancelledError(`${label} was cancelled.`));
  ac.deadline(
    Date.now() + timeoutMs,
    () =>
      new CallTimeoutError(
        `${label} did not finish within its ${timeoutMs / 1000} s timeout (the whole task); it was cancelled. Raise "timeout" for this server in mcp.json for longer tasks.`,
        timeoutMs,
      ),
  );
  const remaining = (started: number): number => Math.max(1, started + timeoutMs - Date.now());
  const started = Date.now();
  let taskId: string | undefined;
  let finished = false;
  // Status messages ride on the last real progress (or count status changes when there is none).
  let last: { progress: number; total?: number | undefined } = { progress: 0 };
  // What the server sent goes through the connection's gate: checked (else dropped), masked, bounded.
  const report = (raw: unknown): void => {
    const event = connection.gate.progress(server, tool, raw);
    if (event === undefined) return;
    last = { progress: event.progress, total: event.total };
    try {
      options.onProgress?.(event);
    } catch {
      // A failing listener loses that event, not the task.
    }
  };
  const reportStatus = (message: string): void =>
    report({ progress: last.total === undefined ? last.progress + 1 : last.progress, ...(last.total === undefined ? {} : { total: last.total }), message });
  // The SDK never removes the abort listener it adds to a request's signal: one short-lived child
  // signal per request keeps a long poll from piling listeners on the call's signal.
  // The task's requests (tasks/result carries its elicitations) belong to the call's caller.
  const owner = RequestOwners.tag(options.onElicitation);
  const scoped = async <T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const child = new AbortController();
    if (ac.signal.aborted) child.abort(ac.signal.reason);
    const unlink = onAbort(ac.signal, () => child.abort(ac.signal.reason));
    try {
      return await run(child.signal);
    } finally {
      unlink();
    }
  };
  const progressToken = taskProgressToken();
  connection.taskProgress.set(progressToken, report);
  try {
    const created = await scoped((signal) =>
      connection.send(
        `tools/call "${tool}" (task)`,
        (o) =>
          client.request(
            { method: 'tools/call', params: { name: tool, arguments: args, task: {}, _meta: { progressToken }, ...owner } },
            specTypeSchemas.CreateTaskResult,
            {
              ...o,
              timeout: remaining(started),
            },
          ),
        signal,
        server,
      ),
    );
    taskId = created.task.taskId;
    let task = created.task;
    let lastMessage: string | undefined;
    for (;;) {
      if (task.statusMessage !== undefined && task.statusMessage !== lastMessage) {
        lastMessage = task.statusMessage;
        reportStatus(lastMessage);
      }
      const status = task.status as Status;
      if (status === 'completed' || status === 'failed' || status === 'input_required') break;
      if (status === 'cancelled')
        throw new BerryError('MCP_PROTOCOL_ERROR', `${label}: the server cancelled the task (${task.statusMessage ?? 'no reason given'}).`);
      await sleep(clamp(task.pollInterval ?? DEFAULT_POLL_MS), ac.signal);
      const id = taskId;
      task = await scoped((signal) =>
        connection.send(
          `tasks/get "${tool}"`,
          (o) =>
            client.request({ method: 'tasks/get', params: { taskId: id, ...owner } }, specTypeSchemas.GetTaskResult, { ...o, timeout: remaining(started) }),
          signal,
          server,
        ),
      );
    }
    // tasks/result blocks until the task is terminal (input_required: the server's requests come first).
    const id = taskId;
    const result = await scoped((signal) =>
      connection.send(
        `tasks/result "${tool}"`,
        (o) =>
          client.request({ method: 'tasks/result', params: { taskId: id, ...owner } }, specTypeSchemas.CallToolResult, { ...o, timeout: remaining(started) }),
        signal,
        server,
      ),
    );
    finished = true;
    return result as CallToolResult;
  } catch (error) {
    if (taskId !== undefined && !finished && ac.signal.aborted) sendCancel(connection, taskId);
    throw error;
  } finally {
    ac.dispose();
    connection.taskProgress.delete(progressToken);
  }
}

function clamp(ms: number): number {
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms));
}

/** tasks/cancel, as the spec asks when the requester gives up; failures are only logged away. */
function sendCancel(connection: ServerConnection, taskId: string): void {
  if (connection.dead) return;
  void connection.client
    .request({ method: 'tasks/cancel', params: { taskId } }, specTypeSchemas.CancelTaskResult, { timeout: CANCEL_TIMEOUT_MS })
    .catch(() => {});
}
