/**
 * `mcp_read`: a server's resource by URI (`resources/read`), text and blob contents as the server
 * sent them. A URI the server does not know rejects MCP_UNKNOWN_RESOURCE naming what it publishes.
 */
import { ProtocolError as RpcError } from '@modelcontextprotocol/client';
import { answerInputRounds } from '../connection/input-rounds.js';
import { RequestOwners } from '../connection/request-owners.js';
import { BerryError, isBerryError, ProtocolError } from '../../common/errors.js';
import type { ServerConnection } from '../connection/connection.js';
import type { OperationOptions, ReadRequest, ReadResult } from '../contract.js';
import { nameList } from '../../common/closest-names.js';

/** JSON-RPC "resource not found" in the spec; the SDK's McpServer answers -32602 "… not found". */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

export async function readResource(
  connection: ServerConnection,
  request: Required<ReadRequest>,
  { signal, onElicitation }: OperationOptions,
): Promise<ReadResult> {
  const { server, uri } = request;
  if (!connection.catalog.supports('resources')) {
    throw new BerryError(
      'MCP_UNKNOWN_RESOURCE',
      `Server "${server}" publishes no resources (it does not declare the resources capability); use its tools instead.`,
    );
  }
  try {
    return await connection.send(
      `resources/read "${uri}"`,
      // The SDK's own cache of reads stays out: a read asks the server (the lists honour ttlMs).
      (options) =>
        answerInputRounds(
          connection,
          onElicitation,
          (extra, allow) =>
            connection.client.readResource({ uri, ...extra, ...RequestOwners.tag(onElicitation) }, { ...options, ...allow, cacheMode: 'bypass' }),
          options.signal,
        ),
      signal,
      server,
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
    throw new BerryError('MCP_UNKNOWN_RESOURCE', `Server "${server}" has no resource "${uri}". ${await whatExists(connection, uri, signal)}`, { cause: error });
  }
}

function isNotFound(error: unknown): boolean {
  if (!(error instanceof ProtocolError)) return false;
  const code = error.rpcCode;
  return code === RESOURCE_NOT_FOUND || (code === INVALID_PARAMS && /not found|unknown/i.test(error.message));
}

/** The resources and templates the server lists, closest first; listing failures are not the error. */
async function whatExists(connection: ServerConnection, uri: string, signal: AbortSignal | undefined): Promise<string> {
  try {
    const [resources, templates] = await Promise.all([connection.catalog.list('resources', signal), connection.catalog.list('resourceTemplates', signal)]);
    const parts = [
      `Its resources: ${nameList(
        uri,
        resources.items.map((r) => r.uri),
      )}.`,
    ];
    if (templates.items.length > 0) {
      parts.push(
        `Templates (fill them in): ${nameList(
          uri,
          templates.items.map((t) => t.uriTemplate),
        )}.`,
      );
    }
    return parts.join(' ');
  } catch (error) {
    if (isBerryError(error) || error instanceof RpcError) return 'Its resource list could not be read.';
    throw error;
  }
}
