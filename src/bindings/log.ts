/** A diagnostic event about a server connection, for `--verbose` and the library's `onLog`. */
export interface LogEvent {
  readonly server: string;
  readonly kind: 'spawned' | 'connecting' | 'initialized' | 'stderr' | 'server-log' | 'closed' | 'error' | 'elicitation';
  /** Human-readable text; secrets already redacted. */
  readonly message: string;
}

export type LogSink = (event: LogEvent) => void;

export const noLog: LogSink = () => {};
