import { Transform, Writable, type Readable, type TransformCallback } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { isBerryError } from '../../../common/errors.js';
import { failedProcess } from '../failed-process.js';
import { MAX_PINNED_FD, type MachineProcess, type ProcessExit, type SpawnSpec } from '../machine.js';
import type { SshConnection } from './ssh-connection.js';

const PGID_MARK = '@berry-mcp pgid ';
const EXEC_MARK = '@berry-mcp exec';
/** Lines a login shell may print before our header (a chatty ~/.bashrc) are dropped, up to this. */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * The remote command line: no user data at all, so nothing secret can show in `ps`. It prints
 * its pid (= process-group id: every exec is a new session), reads N lines of script from stdin
 * (`read` consumes a pipe byte by byte, never more than asked) and evaluates them. It avoids
 * single quotes and backslash pairs so sh, bash, zsh and fish login shells all pass it intact.
 */
const BOOTSTRAP =
  `printf "${PGID_MARK}%s\\n" "$$"; IFS= read -r n || exit 125; nl=$(printf "\\nx"); nl=\${nl%x}; s=; i=0; ` +
  'while [ "$i" -lt "$n" ]; do IFS= read -r l || exit 125; s="$s$l$nl"; i=$((i+1)); done; eval "$s"';
export const SSH_LAUNCH_COMMAND = `exec sh -c '${BOOTSTRAP}'`;

/** Exit codes of the preamble, told apart from the command's own by the missing exec mark. */
const STARTUP_FAILURES: Readonly<Record<number, { code: string; what: string }>> = {
  124: { code: 'EBINDMOVED', what: 'a mount source changed while it was starting (or could not be opened); nothing was mounted' },
  125: { code: 'EPROTO', what: 'the launcher did not receive its script' },
  126: { code: 'ENOENT', what: 'the working directory does not exist or is not accessible' },
  127: { code: 'ENOENT', what: 'the command was not found on the remote PATH' },
};

/**
 * Unsets every exported variable of the login shell (for `clearEnv`), reading the names from
 * `export -p` (dash, bash and zsh print `export NAME=…`; bash may print `declare -x`). `command`
 * keeps a readonly variable from ending the shell.
 */
const CLEAR_ENV =
  `for _n in $(export -p | while IFS= read -r _l; do case $_l in "export "*|"declare -x "*) _l=\${_l#export }; _l=\${_l#declare -x }; printf '%s\\n' "\${_l%%=*}";; esac; done); ` +
  'do case $_n in *[!A-Za-z0-9_]*|[0-9]*) ;; *) command unset "$_n" 2>/dev/null;; esac; done';

/** Single-quotes a string for POSIX sh. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The script sent on stdin ahead of the process's own input: exports (values never reach a
 * command line), cd, a check that the command exists, the exec mark, exec.
 */
export function launchScript(spec: SpawnSpec): string {
  const lines: string[] = spec.clearEnv ? [CLEAR_ENV] : [];
  for (const [name, value] of Object.entries(spec.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw Object.assign(new Error(`Invalid environment variable name ${JSON.stringify(name)}`), { code: 'ERR_INVALID_ARG_VALUE' });
    }
    if (value.includes('\0')) {
      throw Object.assign(new Error(`Environment variable ${name} contains a NUL byte`), { code: 'ERR_INVALID_ARG_VALUE' });
    }
    lines.push(`export ${name}=${shQuote(value)}`);
  }
  if (spec.command === '' || spec.command.startsWith('-')) {
    throw Object.assign(new Error(`Invalid command ${JSON.stringify(spec.command)}`), { code: 'ERR_INVALID_ARG_VALUE' });
  }
  const fail = (message: string, code: number): string => `{ printf '%s\\n' ${shQuote(`berry-mcp: ${message}`)} >&2; exit ${code}; }`;
  lines.push(`cd ${shQuote(spec.cwd)} 2>/dev/null || ${fail(`cannot change to working directory ${spec.cwd}`, 126)}`);
  // cd exported them: a cleared environment stays exactly `env`.
  if (spec.clearEnv) lines.push('command unset OLDPWD PWD 2>/dev/null');
  lines.push(...pinLines(spec, fail));
  lines.push(`command -v ${shQuote(spec.command)} >/dev/null 2>&1 || ${fail(`command not found: ${spec.command}`, 127)}`);
  lines.push(`printf '%s\\n' ${shQuote(EXEC_MARK)}`);
  lines.push(`exec ${[spec.command, ...spec.args].map(shQuote).join(' ')}`);
  const script = `${lines.join('\n')}\n`;
  const count = script.split('\n').length - 1;
  return `${count}\n${script}`;
}

/**
 * Opens each pin at its descriptor (`command` keeps a failed redirection from ending the shell)
 * and checks that the kernel's name for what was opened is the path itself: a symlink swapped in
 * since the check sent the open elsewhere. A FIFO swapped in blocks the open until the start times out.
 */
function pinLines(spec: SpawnSpec, fail: (message: string, code: number) => string): string[] {
  return (spec.pins ?? []).flatMap(({ fd, path }) => {
    if (!Number.isInteger(fd) || fd < 3 || fd > MAX_PINNED_FD || path.includes('\0') || !path.startsWith('/')) {
      throw Object.assign(new Error(`Invalid pin ${fd} ${JSON.stringify(path)}`), { code: 'ERR_INVALID_ARG_VALUE' });
    }
    const quoted = shQuote(path);
    return [
      // Braces: a redirection on `exec` itself would silence the shell's stderr for good.
      `{ command exec ${fd}<${quoted}; } 2>/dev/null || ${fail(`cannot open the mount source ${path}`, 124)}`,
      `[ "$(readlink /proc/self/fd/${fd} 2>/dev/null)" = ${quoted} ] || ${fail(`the mount source ${path} changed while the server was starting; nothing was mounted`, 124)}`,
    ];
  });
}

/** Starts `spec` over a new exec channel of `connection`. */
export async function startSshProcess(connection: SshConnection, spec: SpawnSpec): Promise<MachineProcess> {
  const preamble = launchScript(spec);
  let channel: ClientChannel;
  try {
    await connection.prepareControl();
    channel = await connection.exec(SSH_LAUNCH_COMMAND);
  } catch (error) {
    if (isBerryError(error)) throw error;
    return failedProcess(error as Error);
  }
  channel.write(preamble);
  return new SshProcess(connection, channel, spec);
}

class SshProcess implements MachineProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exited: Promise<ProcessExit>;
  readonly #connection: SshConnection;
  #pgid: number | undefined;
  #execReached = false;
  #pendingSignal: 'SIGTERM' | 'SIGKILL' | undefined;
  #closed = false;

  constructor(connection: SshConnection, channel: ClientChannel, spec: SpawnSpec) {
    this.#connection = connection;
    // Errors surface through `exited` and the wrapper streams; an unhandled 'error' would crash.
    channel.on('error', () => {});
    this.stdin = channelInput(channel);
    const header = new HeaderStripper(
      (pgid) => {
        this.#pgid = pgid;
        if (this.#pendingSignal) this.killGroup(this.#pendingSignal);
      },
      () => {
        this.#execReached = true;
      },
    );
    this.stdout = channel.pipe(header);
    this.stderr = channel.stderr;
    this.exited = new Promise<ProcessExit>((resolve) => {
      let exit: ProcessExit | undefined;
      const settle = (): void => {
        this.#closed = true;
        resolve(exit ?? { code: undefined, signal: undefined, error: lostError(connection, spec) });
      };
      channel.once('exit', (code: number | null, signal?: string) => {
        exit = this.#exitRecord(code ?? undefined, signal, spec);
        // Output still in flight is delivered; the exit itself is known now.
        settle();
      });
      channel.once('close', settle);
    });
  }

  get pid(): number | undefined {
    return this.#pgid;
  }

  killGroup(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.#pgid === undefined) {
      // Before the pid line arrives: send once it does. After the channel closed: nothing to do.
      if (!this.#closed) this.#pendingSignal = signal;
      return;
    }
    this.#pendingSignal = undefined;
    // With the connection gone sshd has closed the session's pipes; nothing more can be sent.
    this.#connection.signalGroup(this.#pgid, signal === 'SIGKILL' ? 'KILL' : 'TERM');
  }

  #exitRecord(code: number | undefined, signal: string | undefined, spec: SpawnSpec): ProcessExit {
    const failure = code === undefined || this.#execReached ? undefined : STARTUP_FAILURES[code];
    if (!failure) return { code, signal: signal ?? undefined, error: undefined };
    const error = Object.assign(new Error(`Cannot start ${spec.command} on ${this.#connection.identity} in ${spec.cwd}: ${failure.what}`), {
      code: failure.code,
      path: spec.command,
    });
    return { code, signal: undefined, error };
  }
}

/** Drops the launcher's header lines from stdout, then passes the process's output through. */
class HeaderStripper extends Transform {
  #pending: Buffer = Buffer.alloc(0);
  #done = false;
  readonly #onPgid: (pgid: number) => void;
  readonly #onExec: () => void;

  constructor(onPgid: (pgid: number) => void, onExec: () => void) {
    super();
    this.#onPgid = onPgid;
    this.#onExec = onExec;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#done) return callback(null, chunk);
    let buffer = Buffer.concat([this.#pending, chunk]);
    for (let eol = buffer.indexOf(10); eol !== -1 && !this.#done; eol = buffer.indexOf(10)) {
      const line = buffer.subarray(0, eol).toString('latin1');
      buffer = buffer.subarray(eol + 1);
      if (line.startsWith(PGID_MARK)) {
        const pgid = Number(line.slice(PGID_MARK.length));
        if (Number.isInteger(pgid) && pgid > 1) this.#onPgid(pgid);
      } else if (line === EXEC_MARK) {
        this.#done = true;
        this.#onExec();
      }
    }
    if (!this.#done && buffer.length > MAX_HEADER_BYTES) this.#done = true;
    this.#pending = this.#done ? Buffer.alloc(0) : buffer;
    callback(null, this.#done && buffer.length > 0 ? buffer : undefined);
  }
}

/** The process's stdin: end() sends EOF, destroy() never tears down the whole channel. */
function channelInput(channel: ClientChannel): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (channel.writableEnded || channel.destroyed) {
        return callback(Object.assign(new Error('write EPIPE: the remote process closed its input'), { code: 'EPIPE' }));
      }
      channel.write(chunk, (error?: Error | null) => callback(error ?? null));
    },
    final(callback) {
      if (!channel.writableEnded) channel.end();
      callback();
    },
    destroy(error, callback) {
      if (!channel.writableEnded && !channel.destroyed) channel.end();
      callback(error);
    },
  });
}

function lostError(connection: SshConnection, spec: SpawnSpec): Error {
  return Object.assign(new Error(`The SSH connection to ${connection.identity} closed while ${spec.command} was running`), {
    code: 'ECONNRESET',
  });
}
