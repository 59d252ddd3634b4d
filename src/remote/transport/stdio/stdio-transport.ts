import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ProtocolErrorCode, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type { Machine, MachineProcess, ProcessExit, SpawnSpec } from '../../machine/machine.js';
import { LineReader, LineTooLongError } from './line-reader.js';
import { settlesWithin } from '../../../common/abort.js';
import { TailBuffer } from './stderr-tail.js';
import { StderrLines } from './stderr-lines.js';
import { responseId } from './response-id.js';
import { parseMessage } from './parse-message.js';
import type { StdioDiagnostics, StdioTransportFailure } from './stdio-diagnostics.js';

export type { StdioDiagnostics, StdioTransportFailure };

/** Default cap on one message from a server's stdout: results of 100 MB and more fit. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** After stdout ends, how long the process may take to exit before that counts as a lost transport. */
const STDOUT_END_GRACE_MS = 100;

export interface StdioShutdownOptions {
  /** After stdin ends, how long the server may take to exit on its own. @default 150 */
  readonly stdinGraceMs?: number;
  /** After SIGTERM to the group, how long before SIGKILL. @default 1000 */
  readonly termGraceMs?: number;
  /** After the server exits, how long its pipes may keep delivering (a grandchild may hold them). @default 200 */
  readonly drainMs?: number;
}

export interface MachineStdioTransportOptions {
  readonly machine: Machine;
  readonly spec: SpawnSpec;
  /**
   * stderr for diagnostics, in whole lines (a line longer than 8 KB comes in pieces), so that
   * redacting a secret never meets half of it.
   */
  readonly onStderr?: (text: string) => void;
  /** @default 4096 */
  readonly stderrTailBytes?: number;
  readonly shutdown?: StdioShutdownOptions;
  /** Longest message (one line of stdout) accepted; past it the transport fails and stops the server. @default 268435456 */
  readonly maxMessageBytes?: number;
}

/**
 * MCP over a process's stdin/stdout on any Machine. The process runs in its own process group;
 * shutdown is stdin end → grace → SIGTERM to the group → grace → SIGKILL to the group, and pipe
 * draining is bounded so a descendant holding stdout cannot hang close.
 */
export class MachineStdioTransport implements Transport, StdioDiagnostics {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  sessionId?: string;

  readonly #options: MachineStdioTransportOptions;
  readonly #lines: LineReader;
  readonly #stderrTail: TailBuffer;
  #process: MachineProcess | undefined;
  #exit: ProcessExit | undefined;
  #closing: Promise<void> | undefined;
  #closedNotified = false;
  readonly #stderrLines: StderrLines;
  #failure: StdioTransportFailure | undefined;
  #drained: Promise<void> | undefined;

  constructor(options: MachineStdioTransportOptions) {
    this.#options = options;
    this.#lines = new LineReader(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    this.#stderrTail = new TailBuffer(options.stderrTailBytes ?? 4096);
    this.#stderrLines = new StderrLines((text) => this.#options.onStderr?.(text));
  }

  /** What the transport knows about how its process and pipes ended: what error messages read. */
  diagnostics(): StdioDiagnostics {
    return this;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /**
   * The SDK tells a stdio transport by its `stderr` and `pid` members: a stdio server silent on
   * `server/discover` is a legacy one (on HTTP silence is an outage). stderr is read here, not exposed.
   */
  get stderr(): null {
    return null;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** Set when the transport ended although the process had not exited (yet). */
  get failure(): StdioTransportFailure | undefined {
    return this.#failure;
  }

  get stderrTail(): string {
    return this.#stderrTail.text();
  }

  async start(): Promise<void> {
    if (this.#process) throw new Error('MachineStdioTransport already started');
    const child = await this.#options.machine.spawn(this.#options.spec);
    this.#process = child;
    // EPIPE after the server died surfaces through `exited`. While it lives, a stdin that refuses
    // our writes means no request can reach it any more: the transport has ended.
    child.stdin.on('error', () => this.#failUnlessExited(child, { kind: 'stdin-closed' }));
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});
    const decoder = new StringDecoder('utf8');
    child.stderr.on('data', (chunk: Buffer) => {
      this.#stderrTail.push(chunk);
      try {
        if (this.#options.onStderr) this.#stderrLines.push(decoder.write(chunk));
      } catch (error) {
        // A throwing log sink loses its line, never the host.
        this.#report(error as Error);
      }
    });
    const onLine = (line: string): void => this.#deliver(line);
    child.stdout.on('data', (chunk: Buffer) => {
      try {
        this.#lines.push(chunk, onLine);
      } catch (error) {
        // Never out of the handler: an uncaught throw here would take the whole host down.
        if (error instanceof LineTooLongError) {
          this.#fail({ kind: 'message-too-large', bytes: error.bytes, limitBytes: error.limitBytes });
        } else {
          this.#fail({ kind: 'read-failed', message: (error as Error)?.message ?? String(error) });
        }
      }
    });
    // End of stdout is the end of the transport, whether or not the process lives on.
    child.stdout.once('end', () => this.#failUnlessExited(child, { kind: 'stdout-closed' }));
    void child.exited.then((exit) => {
      this.#exit = exit;
      void this.#afterExit();
    });
  }

  // Runs inside the stdout 'data' handler: nothing may escape it.
  #deliver(line: string): void {
    if (this.#failure || this.#closedNotified) return;
    let message: JSONRPCMessage;
    try {
      message = parseMessage(line);
    } catch (error) {
      const reason = error instanceof SyntaxError ? error.message : 'not a JSON-RPC message';
      this.#report(new Error(`invalid message on stdout (${line.length} chars): ${reason}`));
      const id = responseId(line);
      if (id === undefined) return;
      // A malformed answer to a known request fails that request now, not at its timeout.
      message = {
        jsonrpc: '2.0',
        id,
        error: { code: ProtocolErrorCode.InternalError, message: `the server sent a malformed response: ${reason}` },
      };
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.#report(error as Error);
    }
  }

  #report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A failing error handler must not take the host down with it.
    }
  }

  // A pipe ends just before its process exits too: give the exit a moment to be the reason.
  #failUnlessExited(child: MachineProcess, failure: StdioTransportFailure): void {
    if (this.#failure || this.#closing || this.#exit) return;
    void settlesWithin(child.exited, STDOUT_END_GRACE_MS).then((exited) => {
      if (!exited) this.#fail(failure);
    });
  }

  /**
   * A request got no answer for `ms` while one unterminated line held stdout all that time: no
   * answer can ever get through it, so the transport has ended. True when it gave up.
   */
  abandonIfStuck(ms: number): boolean {
    const since = this.#lines.pendingSince;
    if (since === undefined || Date.now() - since < ms) return false;
    const bytes = this.#lines.pendingBytes;
    this.#fail({
      kind: 'read-failed',
      message: `a line of ${bytes} bytes without a newline has blocked stdout for ${Math.round((Date.now() - since) / 1000)} s`,
    });
    return true;
  }

  /** Gives up on the process: in-flight requests fail now, the process group is stopped behind them. */
  #fail(failure: StdioTransportFailure): void {
    if (this.#failure || this.#closing || this.#closedNotified) return;
    this.#failure = failure;
    this.#lines.clear();
    this.#process?.stdout.destroy();
    void this.close();
    this.#notifyClosed();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin || this.#exit || this.#closing || stdin.destroyed || !stdin.writable) {
      throw new Error('Not connected');
    }
    if (!stdin.write(serializeMessage(message))) await this.#whenDrained(stdin);
  }

  /** One wait for every sender while stdin is full: a server that stops reading adds no listeners per message. */
  #whenDrained(stdin: Writable): Promise<void> {
    this.#drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        stdin.off('drain', done);
        stdin.off('close', done);
        this.#drained = undefined;
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
    return this.#drained;
  }

  // The server exited on its own (crash or stdin end): take down what is left of its group.
  async #afterExit(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    await this.#boundedDrain(child);
    child.killGroup('SIGKILL');
    this.#destroyPipes(child);
    this.#notifyClosed();
  }

  async #boundedDrain(child: MachineProcess): Promise<void> {
    if (child.stdout.readableEnded || child.stdout.destroyed) return;
    const closed = new Promise((resolve) => child.stdout.once('close', resolve));
    await settlesWithin(closed, this.#options.shutdown?.drainMs ?? 200);
  }

  #destroyPipes(child: MachineProcess): void {
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
  }

  #notifyClosed(): void {
    if (this.#closedNotified) return;
    this.#closedNotified = true;
    try {
      this.#stderrLines.flush();
    } catch (error) {
      this.#report(error as Error);
    }
    this.#lines.clear();
    try {
      this.onclose?.();
    } catch (error) {
      this.#report(error as Error);
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const child = this.#process;
    if (!child) {
      this.#notifyClosed();
      return;
    }
    const shutdown = this.#options.shutdown ?? {};
    const exited = child.exited;
    child.stdin.end();
    if (!(await settlesWithin(exited, shutdown.stdinGraceMs ?? 150))) {
      child.killGroup('SIGTERM');
      if (!(await settlesWithin(exited, shutdown.termGraceMs ?? 1000))) {
        child.killGroup('SIGKILL');
        await settlesWithin(exited, 5000);
      }
    }
    await this.#boundedDrain(child);
    // Descendants that escaped the server's own shutdown still share its process group.
    child.killGroup('SIGKILL');
    this.#destroyPipes(child);
    this.#notifyClosed();
  }
}
