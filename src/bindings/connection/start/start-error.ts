/**
 * Why a server failed to start, in one message a user can act on: its exit, stderr tail, the
 * request the start limit ran out on, an HTTP status, or the revisions each side speaks.
 */
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { CancelledError, ServerStartError, type BerryError } from '../../../common/errors.js';
import { HttpStatusError, type StdioDiagnostics } from '../../../remote/transport/index.js';
import { authRequired, describeFailure, describeHttpFailure } from '../failures.js';
import type { ServerConnection } from '../connection.js';
import { tooLargeError } from './stdio-failure.js';
import { carriesRpcError, mapRevisionError } from './revision-errors.js';

/**
 * Why a server failed to start, described before its transport is closed (our own kill must not
 * read as the cause). `timedOut`: the request the start limit ran out on; `modernStatus`: the last
 * error status of the 2026-07-28 wire.
 */
export function startError(
  connection: ServerConnection,
  failure: unknown,
  started: number,
  aborted: boolean,
  timedOut: string | undefined,
  modernStatus: HttpStatusError | undefined,
): BerryError {
  const { config, redact } = connection;
  const negotiation = failure instanceof SdkError && failure.code === SdkErrorCode.EraNegotiationFailed;
  // A probe that failed for a reason of its own (refused, reset, an HTTP status) is described by it;
  // one the SDK read as "no 2026-07-28 here" from an error page (a pinned entry) by that status.
  const errorPage =
    negotiation && failure.cause === undefined && !(failure instanceof SdkHttpError) && modernStatus !== undefined && !carriesRpcError(modernStatus);
  const error = errorPage ? modernStatus : negotiation && failure.cause !== undefined ? failure.cause : failure;
  const durationMs = Date.now() - started;
  if (aborted) return new CancelledError(`Connecting to server "${config.name}" was cancelled.`);
  if (error instanceof HttpStatusError && error.status === 401) return authRequired(config.name, error, redact);
  const revision = mapRevisionError(error, { server: config.name, operation: 'connect', redact, offered: connection.offered });
  if (revision) return revision;
  const stdio: StdioDiagnostics | undefined = connection.stdio;
  const exit = stdio?.exit;
  const stderrTail = stdio ? redact(stdio.stderrTail) : '';
  let reason: string;
  const tooLarge = tooLargeError(stdio, 'initialize', config.name);
  if (tooLarge) {
    reason = tooLarge.message;
  } else if (stdio?.failure?.kind === 'stdout-closed' || stdio?.failure?.kind === 'stdin-closed') {
    reason = `the server closed its ${stdio.failure.kind === 'stdout-closed' ? 'stdout' : 'stdin'} during initialization (it was stopped)`;
  } else if (timedOut !== undefined) {
    reason = `no answer to ${timedOut} within ${config.initTimeoutMs / 1000} s`;
  } else if (exit?.error) {
    const code = (exit.error as NodeJS.ErrnoException).code;
    reason =
      code === 'ENOENT'
        ? `command not found (or cwd "${redact(config.kind === 'stdio' ? (config.cwd ?? '') : '')}" missing): check "command" and PATH on the target machine`
        : `could not start: ${redact(exit.error.message)}`;
    // A remote shell reports the failure with an exit code too (127: not found, 126: no cwd).
    if (exit.code !== undefined) reason += ` (exit code ${exit.code})`;
  } else if (exit?.code !== undefined) {
    reason = `the server exited with code ${exit.code} during initialization`;
  } else if (exit?.signal !== undefined) {
    reason = `the server was killed by ${exit.signal} during initialization`;
  } else {
    reason = describeHttpFailure(error, redact) ?? redact(describeFailure(error));
  }
  return new ServerStartError(
    `Server "${config.name}" failed to start (${config.display}): ${reason}${stderrTail ? `\nstderr (last lines):\n${stderrTail}` : ''}`,
    {
      server: config.name,
      ...(config.kind === 'stdio' ? { command: config.display } : {}),
      ...(exit?.code === undefined ? {} : { exitCode: exit.code }),
      ...(exit?.signal === undefined ? {} : { signal: exit.signal }),
      stderrTail,
      durationMs,
    },
  );
}
