import { parseArgs } from 'node:util';

export const USAGE = `Usage:
  berry-mcp list [SERVER]                 every configured server, its status and tools
  berry-mcp describe SERVER [TOOL]        a tool's schema, or a server's whole catalog
  berry-mcp call SERVER TOOL [JSON]       call a tool (arguments as JSON, default {})
  berry-mcp run FILE|-                    run a script in the sandbox (stdin when -)
  berry-mcp typings [-o FILE]             .d.ts for the configured servers
  berry-mcp auth SERVER [--no-browser | --logout]  sign in to (or out of) an HTTP server

Common options:
  --config PATH         mcp.json to read (default ~/.config/berry/mcp.json on the target machine)
  --cwd DIR             working directory on the target machine (default: the current one)
  --ssh [USER@]HOST[:PORT]  run against a remote machine over SSH
  --identity FILE       SSH private key (default: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa)
  --accept-host-key     trust an SSH host key missing from ~/.ssh/known_hosts (a changed key is always refused)
  --json                print exactly the value a script would receive
  --verbose             stream server stderr and connection lifecycle to stderr
Run options:
  --timeout SECONDS     wall-clock limit of the run (default 300)
  --memory MB           isolate memory limit (default 128)
  --out DIR             where images are written (default: a new temp dir)

Exit status: 0 success; 1 the script failed or a tool returned isError; 2 bad usage, bad config,
or a server that could not be reached.`;

export type Command = 'list' | 'describe' | 'call' | 'run' | 'typings';

export interface CliArgs {
  readonly command: Command;
  readonly positionals: readonly string[];
  readonly config: string | undefined;
  readonly cwd: string | undefined;
  readonly ssh: string | undefined;
  readonly identity: string | undefined;
  readonly acceptHostKey: boolean;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly memoryMb: number | undefined;
  readonly out: string | undefined;
  readonly output: string | undefined;
}

export class UsageError extends Error {}

const ARITY: Record<Command, readonly [number, number]> = {
  list: [0, 1],
  describe: [1, 2],
  call: [2, 3],
  run: [1, 1],
  typings: [0, 0],
};

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} needs a positive number, got "${value}"`);
  return n;
}

/** Returns undefined for --help (the caller prints USAGE). */
export function parseCliArgs(argv: readonly string[]): CliArgs | 'help' | 'version' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        cwd: { type: 'string' },
        ssh: { type: 'string' },
        identity: { type: 'string' },
        'accept-host-key': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        timeout: { type: 'string' },
        memory: { type: 'string' },
        out: { type: 'string' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError('missing command');
  if (!(command in ARITY)) throw new UsageError(`unknown command "${command}"`);
  const [min, max] = ARITY[command as Command];
  if (rest.length < min || rest.length > max) {
    throw new UsageError(`"${command}" takes ${min === max ? min : `${min} to ${max}`} argument(s), got ${rest.length}`);
  }
  return {
    command: command as Command,
    positionals: rest,
    config: values.config,
    cwd: values.cwd,
    ssh: values.ssh,
    identity: values.identity,
    acceptHostKey: values['accept-host-key'] ?? false,
    json: values.json ?? false,
    verbose: values.verbose ?? false,
    timeoutSeconds: positiveNumber('--timeout', values.timeout),
    memoryMb: positiveNumber('--memory', values.memory),
    out: values.out,
    output: values.output,
  };
}
