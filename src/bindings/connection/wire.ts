import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { MachineStdioTransport, StdioDiagnostics } from '../../remote/transport/index.js';

/** A connection's transport, told apart by its kind; a stdio one with what it knows of its failures. */
export type Wire =
  | { readonly kind: 'stdio'; readonly transport: MachineStdioTransport; readonly diagnostics: StdioDiagnostics }
  | { readonly kind: 'http'; readonly transport: StreamableHTTPClientTransport };
