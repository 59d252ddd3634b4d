import type { MachineStdioTransport } from '../remote/index.js';

/** How a stdio server's transport ended (its failure or exit, and its stderr tail, redacted); '' when it did not. */
export function describeStdioEnd(transport: MachineStdioTransport, redact: (text: string) => string): string {
  const exit = transport.exit;
  const parts: string[] = [];
  const failure = transport.failure;
  if (failure?.kind === 'stdout-closed') parts.push('the server closed its stdout while still running (it was stopped)');
  else if (failure?.kind === 'stdin-closed') parts.push('the server stopped reading its stdin while still running (it was stopped)');
  else if (failure?.kind === 'read-failed') parts.push(`its output could not be read (${failure.message}); the server was stopped`);
  else if (exit?.code !== undefined) parts.push(`the server exited with code ${exit.code}`);
  else if (exit?.signal !== undefined) parts.push(`the server was killed by ${exit.signal}`);
  const tail = transport.stderrTail;
  if (tail) parts.push(`stderr:\n${redact(tail)}`);
  return parts.join('; ');
}
