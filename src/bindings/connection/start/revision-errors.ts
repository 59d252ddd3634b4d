/**
 * The failures the 2026-07-28 revision brought, as typed errors: no shared revision (-32022, a
 * failed era negotiation), headers that disagree with the body (-32020), a capability the server
 * needs and berry-mcp does not declare (-32021), and `input_required` asks it cannot answer.
 */
import { ProtocolError as RpcError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { BerryError, ProtocolVersionError } from '../../../common/errors.js';
import { SPOKEN_REVISIONS } from '../../../config/index.js';
import { HttpStatusError } from '../../../remote/transport/index.js';
import { oneLine } from '../failures.js';

export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export interface RevisionErrorContext {
  readonly server: string;
  readonly operation: string;
  readonly redact: (text: string) => string;
  /** The revisions this connection offered. @default both */
  readonly offered?: readonly string[];
}

/** The typed error for a revision failure, or undefined when `error` is none. */
export function mapRevisionError(error: unknown, context: RevisionErrorContext): BerryError | undefined {
  const where = `server "${context.server}" (${context.operation})`;
  const rpc = rpcErrorOf(error);
  if (rpc?.code === UNSUPPORTED_PROTOCOL_VERSION) return versionError(context, supportedOf(rpc.data), rpc.message);
  if (rpc?.code === HEADER_MISMATCH) {
    return new BerryError(
      'MCP_HEADER_MISMATCH',
      `${where} refused the request: its HTTP headers (Mcp-Method, Mcp-Name, Mcp-Param-*) disagree with its body, as the server reads them (-32020: ${context.redact(oneLine(rpc.message, 300))}). A proxy that rewrites headers, or a tool whose x-mcp-header annotations changed, does this; this call failed.`,
    );
  }
  if (rpc?.code === MISSING_CLIENT_CAPABILITY) {
    const needed = capabilitiesOf(rpc.data);
    return new BerryError(
      'MCP_CAPABILITY_MISSING',
      `${where} needs client capabilities berry-mcp does not declare${needed ? ` (${needed})` : ''}; berry-mcp declares elicitation only. This call failed.`,
    );
  }
  if (!(error instanceof SdkError)) return undefined;
  // With a cause, the probe could not be asked (network, an unusable reply), and with a status the
  // server failed (a 5xx): not a revision matter.
  if (error.code === SdkErrorCode.EraNegotiationFailed && error.cause === undefined && !(error instanceof SdkHttpError))
    return versionError(context, [], error.message);
  if (
    error.code === SdkErrorCode.CapabilityNotSupported ||
    error.code === SdkErrorCode.UnsupportedResultType ||
    error.code === SdkErrorCode.InputRequiredRoundsExceeded
  ) {
    return new BerryError(
      'MCP_INPUT_UNSUPPORTED',
      `${where} asked for input berry-mcp cannot give: ${context.redact(oneLine(error.message, 300))}. berry-mcp answers elicitations only (not sampling or roots); this call failed.`,
      { cause: error },
    );
  }
  return undefined;
}

function versionError(context: RevisionErrorContext, serverVersions: readonly string[], detail: string): ProtocolVersionError {
  const offered = context.offered ?? SPOKEN_REVISIONS;
  const theirs = serverVersions.length > 0 ? `speaks ${serverVersions.join(', ')}` : `did not accept ${offered.join(' or ')}`;
  const pinned = offered.length === 1 ? ` (this entry pins "protocol": "${offered[0]}"; set "auto" or another revision)` : '';
  return new ProtocolVersionError(
    `Server "${context.server}" ${theirs}; berry-mcp offered ${offered.join(', ')}${pinned}, and speaks ${SPOKEN_REVISIONS.join(' and ')}. No revision both speak: ${context.redact(oneLine(detail, 300))}`,
    { server: context.server, serverVersions, clientVersions: offered },
  );
}

/** The body of this error status is a JSON-RPC error: the server answered, in MCP. */
export function carriesRpcError(error: HttpStatusError): boolean {
  return rpcErrorOf(error) !== undefined;
}

/** A JSON-RPC error as the SDK threw it, or as the body of an HTTP error status (the legacy wire). */
function rpcErrorOf(error: unknown): { code: number; message: string; data: unknown } | undefined {
  if (error instanceof RpcError) return { code: error.code, message: error.message, data: error.data };
  if (!(error instanceof HttpStatusError) || !error.body.startsWith('{')) return undefined;
  try {
    const body = JSON.parse(error.body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const code = body.error?.code;
    if (typeof code !== 'number') return undefined;
    return { code, message: typeof body.error?.message === 'string' ? body.error.message : '', data: body.error?.data };
  } catch {
    return undefined;
  }
}

function supportedOf(data: unknown): string[] {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported)
    ? supported
        .filter((v): v is string => typeof v === 'string')
        .slice(0, 10)
        .map((v) => v.slice(0, 40))
    : [];
}

function capabilitiesOf(data: unknown): string | undefined {
  const required = (data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  return typeof required === 'object' && required !== null ? Object.keys(required).slice(0, 10).join(', ') : undefined;
}
