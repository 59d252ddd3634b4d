/** Every flag the CLI knows. A command accepts the ones its table entry lists. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Placeholder shown in help for a string option, e.g. SECONDS. */
  readonly arg?: string;
  /** Repeatable: the value is every occurrence in order. */
  readonly multiple?: boolean;
  readonly help: string;
}

export const OPTIONS = {
  config: { type: 'string', arg: 'PATH', help: 'mcp.json to read (default ~/.config/berry/mcp.json on the target machine)' },
  cwd: { type: 'string', arg: 'DIR', help: 'working directory on the target machine (default: the current one)' },
  ssh: { type: 'string', arg: '[USER@]HOST[:PORT]', help: 'run against a remote machine over SSH' },
  identity: { type: 'string', arg: 'FILE', help: 'SSH private key (default: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa)' },
  'accept-host-key': {
    type: 'boolean',
    help: 'trust an SSH host key missing from ~/.ssh/known_hosts (a changed key is always refused)',
  },
  json: { type: 'boolean', help: 'print exactly the value a script would receive' },
  store: {
    type: 'string',
    arg: 'redis://HOST:PORT/DB',
    help: 'keep sign-ins, saved catalogs and run states in this Redis, shared by a fleet (needs BERRY_STORE_KEY; default BERRY_STORE, else files)',
  },
  'store-prefix': { type: 'string', arg: 'PREFIX', help: 'put before every key of the Redis store (default BERRY_STORE_PREFIX, else berry:)' },
  verbose: { type: 'boolean', short: 'v', help: 'stream server stderr and connection lifecycle to stderr' },
  timeout: { type: 'string', arg: 'SECONDS', help: 'wall-clock limit of the run (default 300)' },
  memory: { type: 'string', arg: 'MB', help: 'isolate memory limit (default 128)' },
  out: { type: 'string', arg: 'DIR', help: 'where images are written (default: a new folder per run under the temp dir)' },
  output: { type: 'string', short: 'o', arg: 'FILE', help: 'write to FILE instead of stdout' },
  refresh: { type: 'boolean', help: 'dial every server even when a saved catalog could answer' },
  schemas: { type: 'boolean', help: 'with TOOL: also print the raw input and output JSON Schemas' },
  server: { type: 'string', arg: 'NAME', help: 'search the tools of this server only' },
  limit: { type: 'string', arg: 'N', help: 'how many tools to print, best first (1 to 50, default 10)' },
  'confirm-writes': { type: 'boolean', help: 'ask on the terminal before each call to a tool that may write (refused off a terminal)' },
  env: { type: 'string', arg: 'KEY=VALUE', multiple: true, help: 'an environment variable of the stdio server (repeatable; write secrets as ${VAR})' },
  header: { type: 'string', arg: 'NAME=VALUE', multiple: true, help: 'an HTTP header of the server (repeatable; NAME: VALUE works too)' },
  disabled: { type: 'boolean', help: 'save the entry with "enabled": false (it is still checked first)' },
  'no-check': { type: 'boolean', help: 'save without starting the server and listing its tools' },
  replace: { type: 'boolean', help: 'overwrite an entry of the same name (in its place in the file)' },
  // serve
  http: { type: 'string', arg: '[HOST:]PORT', help: 'serve Streamable HTTP at /mcp instead of stdio (host default 127.0.0.1)' },
  'allow-origin': { type: 'string', arg: 'ORIGIN', multiple: true, help: 'allow browser requests from this Origin too (repeatable; loopback is allowed)' },
  'token-file': {
    type: 'string',
    arg: 'FILE',
    help: 'bearer tokens, one "NAME TOKEN" a line, instead of BERRY_SERVE_TOKEN: each is a holder with caps of its own',
  },
  'max-concurrency': { type: 'string', arg: 'N', help: 'runs executing at once; the rest queue, each client in turn (default 4 per worker, 4 with none)' },
  'max-client-concurrency': {
    type: 'string',
    arg: 'N',
    help: "runs one HTTP client (a session; a token's 2026 requests) executes at once (default 3/4 of --max-concurrency, at least 1)",
  },
  'max-holder-concurrency': {
    type: 'string',
    arg: 'N',
    help: "runs one token's clients execute at once together (default --max-concurrency with one token, else 3/4 of it)",
  },
  'max-queued-runs': { type: 'string', arg: 'N', help: 'runs one client may have waiting; more are refused SERVE_QUEUE_FULL (default 8)' },
  'max-sessions': { type: 'string', arg: 'N', help: "HTTP sessions at once; past it a new one takes an idle one's place, else 503 (default 16)" },
  'max-holder-sessions': {
    type: 'string',
    arg: 'N',
    help: "HTTP sessions of one token; past it a new one takes its own idle one's place, else 429 (default --max-sessions with one token, else 3/4 of it)",
  },
  'max-holder-streams': { type: 'string', arg: 'N', help: 'subscriptions/listen streams one token keeps open; more are refused 429 (default 16)' },
  workers: {
    type: 'string',
    arg: 'N',
    help: "worker processes that run the scripts, outside serve's own process (retired and replaced when a script leaves memory behind); 0 runs them in it (default: 1 on 1 core, else cores - 1, at least 2 and at most 4)",
  },
  'state-idle': {
    type: 'string',
    arg: 'SECONDS',
    help: "how long serve keeps a 2026-07-28 run's store()/load() state after its last run (default 1800)",
  },
  'output-limit': { type: 'string', arg: 'BYTES', help: 'output budget of each run: text, images and logs together (default 32768, about 8,000 tokens)' },
  signatures: { type: 'boolean', help: "put every tool's TypeScript signature in run's description (past the 2,048 characters some clients keep)" },
  'otel-capture-arguments': {
    type: 'boolean',
    help: "with OTEL_* set: put each call's arguments on its span (gen_ai.tool.call.arguments), the config's secrets masked, cut at 4 KiB",
  },
  // auth
  'no-browser': {
    type: 'boolean',
    help: 'print the sign-in URL, then read the address the browser went to (http://127.0.0.1:PORT/callback?...) from stdin',
  },
  logout: { type: 'boolean', help: "remove the server's stored tokens instead of signing in" },
  help: { type: 'boolean', short: 'h', help: 'show help for the command' },
  version: { type: 'boolean', help: 'print the version' },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

/** What every command that talks to servers accepts. */
export const HOST_OPTIONS: readonly OptionName[] = ['config', 'cwd', 'ssh', 'identity', 'accept-host-key', 'store', 'store-prefix', 'json', 'verbose'];

/** `--timeout SECONDS`, `-o, --output FILE`: the flag as help shows it. */
export function optionSynopsis(name: string): string {
  const spec: OptionSpec | undefined = (OPTIONS as Record<string, OptionSpec>)[name];
  if (spec === undefined) return `--${name}`;
  const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}`;
  return spec.arg ? `${flag} ${spec.arg}` : flag;
}
