import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { BerryError, CallTimeoutError, ProtocolError, TransportClosedError, isBerryError } from '../errors.js';
import { mapHttpError } from './map-http-error.js';

export interface ErrorContext {
  readonly server: string;
  /** What was being done, e.g. `tools/call "echo"`. */
  readonly operation: string;
  readonly timeoutMs: number;
  readonly redact: (text: string) => string;
  /** Exit and stderr details of a stdio server, when its connection closed. */
  readonly closedDetail: () => string;
}

/**
 * Turns whatever the SDK threw into a BerryError. JSON-RPC errors (the server said no) become
 * ProtocolError; failures to ask at all become transport errors.
 */
export function mapSdkError(error: unknown, context: ErrorContext): BerryError {
  if (isBerryError(error)) return error;
  const http = mapHttpError(error, context);
  if (http) return http;
  const where = `server "${context.server}" (${context.operation})`;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) {
      const detail = context.closedDetail();
      return new TransportClosedError(
        `Connection to ${where} closed before it answered${detail ? `: ${detail}` : ''}. ` +
          'The call was not retried; the next operation reconnects.',
        detail,
        { cause: error },
      );
    }
    if (error.code === ErrorCode.RequestTimeout) {
      return new CallTimeoutError(
        `${where} did not answer within ${context.timeoutMs / 1000} s (no progress either). ` +
          'Raise "timeout" for this server in mcp.json if the tool is slow.',
        context.timeoutMs,
        { cause: error },
      );
    }
    return new ProtocolError(
      `${where} returned error ${error.code}: ${context.redact(stripMcpPrefix(error.message))}`,
      error.code,
    );
  }
  return new TransportClosedError(`${where} failed: ${context.redact(describeCause(error))}`, '');
}

function stripMcpPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}

/** Flattens an error and its causes into one line (undici hides the useful part in `cause`). */
export function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    if (current instanceof Error) {
      const text = current.message;
      if (/redirect/i.test(text) && !parts.some((p) => p.includes('redirect'))) {
        parts.push('the server answered with a redirect, which berry-mcp refuses: set "url" to the final address');
      } else if (text && !parts.includes(text)) {
        parts.push(text);
      }
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(': ') || 'unknown error';
}
