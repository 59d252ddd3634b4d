export { DEFAULT_MAX_MESSAGE_BYTES, MachineStdioTransport } from './stdio/stdio-transport.js';
export type { MachineStdioTransportOptions, StdioDiagnostics, StdioShutdownOptions, StdioTransportFailure } from './stdio/stdio-transport.js';
export { MAX_LINE_LIMIT } from './stdio/line-reader.js';
export { closeHttpTransport, createHttpTransport, createMachineFetch } from './http/http-transport.js';
export type { HttpTransportOptions } from './http/http-transport.js';
export { HttpStatusError } from './http/http-status-error.js';
export { STREAM_LOST_MARK } from './http/resumable-stream.js';
