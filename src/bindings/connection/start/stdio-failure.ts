/** What a stdio transport knows about how it failed, in words for error messages. */
import { BerryError } from '../../../common/errors.js';
import type { StdioDiagnostics } from '../../../remote/transport/index.js';

/** The error of a stdio server whose message passed maxMessageBytes (the transport is gone then). */
export function tooLargeError(stdio: StdioDiagnostics | undefined, operation: string, server: string): BerryError | undefined {
  const failure = stdio?.failure;
  if (failure?.kind !== 'message-too-large') return undefined;
  return new BerryError(
    'MCP_MESSAGE_TOO_LARGE',
    `Server "${server}" (${operation}) sent a message of at least ${failure.bytes} bytes, over the ` +
      `limit of ${failure.limitBytes} bytes (maxMessageBytes): the server was stopped and the call was not retried; ` +
      'the next operation reconnects. Ask for less (a page, a range), or raise maxMessageBytes in createHost options.',
  );
}

/** Why a stdio server's connection closed (exit, signal, a closed pipe) and its stderr tail; '' over HTTP. */
export function closedDetail(stdio: StdioDiagnostics | undefined, redact: (text: string) => string): string {
  if (!stdio) return '';
  const exit = stdio.exit;
  const parts: string[] = [];
  const failure = stdio.failure;
  if (failure?.kind === 'stdout-closed') parts.push('the server closed its stdout while still running (it was stopped)');
  else if (failure?.kind === 'stdin-closed') parts.push('the server stopped reading its stdin while still running (it was stopped)');
  else if (failure?.kind === 'read-failed') parts.push(`its output could not be read (${failure.message}); the server was stopped`);
  else if (exit?.code !== undefined) parts.push(`the server exited with code ${exit.code}`);
  else if (exit?.signal !== undefined) parts.push(`the server was killed by ${exit.signal}`);
  const tail = stdio.stderrTail;
  if (tail) parts.push(`stderr:\n${redact(tail)}`);
  return parts.join('; ');
}
