import type { CommandHandler } from './context.js';
import { bytesAtLeast, positive, positiveWhole, RUN_MEMORY, RUN_TIMEOUT, SEARCH_LIMIT, SERVE_WORKERS, type NumberRule } from './args/number-flags.js';
import { HOST_OPTIONS, type OptionName } from './args/options.js';

export interface CommandSpec {
  /** Synopsis after `berry-mcp`, e.g. `run FILE|-`. */
  readonly usage: string;
  /** One line for the command overview. */
  readonly summary: string;
  /** Paragraphs for `berry-mcp help COMMAND`. */
  readonly details: string;
  /** Minimum and maximum number of positional arguments. */
  readonly arity: readonly [number, number];
  /** The message for a wrong number of arguments, where the general one does not fit. */
  readonly arityError?: (positionals: readonly string[]) => string;
  /** Flags the command accepts (help lists them in this order). */
  readonly options: readonly OptionName[];
  /** How the command reads its number flags, checked in this order (see number-flags.ts). */
  readonly numbers?: Readonly<Partial<Record<OptionName, NumberRule>>>;
  /** A flag's help line for this command where options.ts's general one does not fit. */
  readonly optionHelp?: Readonly<Partial<Record<OptionName, string>>>;
  /** Imported only when the command runs, so `--help` and light commands start fast. */
  readonly load: () => Promise<CommandHandler>;
}

/** serve speaks MCP on stdout itself: no --json. */
const SERVE_HOST_OPTIONS = HOST_OPTIONS.filter((o) => o !== 'json');

/**
 * Adding a command is one entry here (its flags are declared in options.ts) plus its own
 * `commands/<name>-command.ts`, a CommandHandler.
 */
export const COMMANDS = {
  list: {
    usage: 'list [SERVER]',
    summary: 'every configured server, its status and tools',
    details:
      'Connects to every enabled server (or only SERVER) and lists its tools. Servers that fail are\nshown with their error code, and a summary line ends the list.',
    arity: [0, 1],
    options: [...HOST_OPTIONS, 'refresh', 'help'],
    load: async () => (await import('./commands/list-command.js')).listCommand,
  },
  describe: {
    usage: 'describe SERVER [TOOL]',
    summary: "a tool's schema, or a server's whole catalog",
    details: "With TOOL: the tool's description, input and output schema. Without: the server's info,\ninstructions and every tool's signature.",
    arity: [1, 2],
    options: [...HOST_OPTIONS, 'schemas', 'help'],
    load: async () => (await import('./commands/describe-command.js')).describeCommand,
  },
  search: {
    usage: 'search QUERY [--server NAME] [--limit N]',
    summary: 'the tools that best match QUERY, across servers',
    details:
      "Ranks every configured server's tools (or one server's) by their names, titles, descriptions and\nargument names, and prints the best first with their call signatures. Answers from saved catalogs\nwithout starting those servers; a server that fails is left out. QUERY may be several words.\n  berry-mcp search 'write file'\n  berry-mcp search entity --server memory --limit 3",
    arity: [1, 1],
    arityError: (positionals) => `"search" takes one QUERY (quote several words), got ${positionals.length} arguments`,
    options: [...HOST_OPTIONS, 'server', 'limit', 'help'],
    numbers: { limit: SEARCH_LIMIT },
    load: async () => (await import('./commands/search-command.js')).searchCommand,
  },
  call: {
    usage: 'call SERVER TOOL [JSON | key=value ...]',
    summary: 'call a tool (arguments as JSON or key=value, default {})',
    details:
      'Arguments are one JSON object, or key=value pairs typed by the tool\'s input schema: numbers and\nbooleans where the schema says so, JSON for objects and arrays, text otherwise.\n  berry-mcp call everything echo message=hi\n  berry-mcp call everything get-sum a=1 b=2\n  berry-mcp call everything echo \'{"message":"hi"}\'\nImages are written to --out (default: a new folder under the temp dir) and their paths printed.',
    arity: [2, Infinity],
    options: [...HOST_OPTIONS, 'out', 'confirm-writes', 'help'],
    load: async () => (await import('./commands/call-command.js')).callCommand,
  },
  read: {
    usage: 'read SERVER URI',
    summary: "read a resource (fill a template's {variables} yourself)",
    details:
      'Prints text contents as they are; blobs are written to files (--out, default a new temp dir)\nand their paths printed.\n  berry-mcp read everything demo://resource/static/document/architecture.md',
    arity: [2, 2],
    options: [...HOST_OPTIONS, 'out', 'help'],
    load: async () => {
      const { readCommand } = await import('./commands/read-command.js');
      return async ({ args, io, signal, host }) => readCommand(await host(), args.positionals, { json: args.json, out: args.out }, io, signal);
    },
  },
  prompt: {
    usage: 'prompt SERVER NAME [JSON | key=value ...]',
    summary: "a prompt's messages, filled in",
    details:
      'Arguments are one JSON object or key=value pairs (prompt arguments are strings). Each message\nprints as its role and text.\n  berry-mcp prompt everything simple-prompt',
    arity: [2, Infinity],
    options: [...HOST_OPTIONS, 'help'],
    load: async () => {
      const { promptCommand } = await import('./commands/prompt-command.js');
      return async ({ args, io, signal, host }) => promptCommand(await host(), args.positionals, { json: args.json }, io, signal);
    },
  },
  run: {
    usage: 'run FILE|-',
    summary: 'run a script in the sandbox (stdin when -)',
    details:
      'Runs FILE (or stdin with -), JavaScript or TypeScript, as the body of an async function, with\ntools.mcp_search, tools.mcp_list, tools.mcp_describe, tools.mcp_call, tools.mcp_read,\ntools.mcp_prompt, text(), image(), store(), load() and console. text() and logs print as they\nhappen; each call in flight shows its own progress line on a terminal. The return value prints last.',
    arity: [1, 1],
    options: [...HOST_OPTIONS, 'timeout', 'memory', 'out', 'confirm-writes', 'no-check', 'help'],
    numbers: { timeout: RUN_TIMEOUT, memory: RUN_MEMORY },
    optionHelp: { 'no-check': "run without first checking the script's tools.* calls against the servers (see docs/scripts.md)" },
    load: async () => (await import('./commands/run-command.js')).runCommand,
  },
  typings: {
    usage: 'typings [SERVER] [-o FILE]',
    summary: '.d.ts for the configured servers (or one of them)',
    details:
      "Writes TypeScript declarations for every connected server's tools, for editors and for models\nwriting scripts. Servers in error are named in a comment.",
    arity: [0, 1],
    options: [...HOST_OPTIONS, 'output', 'help'],
    load: async () => (await import('./commands/typings-command.js')).typingsCommand,
  },
  add: {
    usage: 'add NAME (URL | -- COMMAND [ARG ...])',
    summary: 'add a server to the config, once it starts and lists its tools',
    details:
      "Builds the entry, checks it as list would (starts the server, lists its tools) and only then\nwrites it at the end of mcpServers, leaving the rest of the file as it is (temp file + rename).\nA server that fails the check is not saved (exit 2). Words after -- are the command as your shell\nsplit them; a single word with blanks is split like a shell would (quotes, backslashes), nothing\nexpanded. --cwd is the server's working directory. Write secrets as ${VAR}: they are expanded from\nthe target machine's environment when the server starts.\n  berry-mcp add fs -- npx -y @modelcontextprotocol/server-filesystem \"/srv/my docs\"\n  berry-mcp add fs -- \"npx -y @modelcontextprotocol/server-filesystem '/srv/my docs'\"\n  berry-mcp add docs https://example.com/mcp --header 'Authorization=Bearer ${DOCS_TOKEN}'",
    arity: [1, Infinity],
    options: [...HOST_OPTIONS, 'env', 'header', 'disabled', 'no-check', 'replace', 'help'],
    load: async () => (await import('./commands/add-command.js')).addCommand,
  },
  remove: {
    usage: 'remove NAME',
    summary: 'remove a server from the config',
    details:
      'Cuts the entry NAME out of mcpServers and leaves every other byte of the file as it was\n(temp file + rename). Stored OAuth tokens stay: `berry-mcp auth NAME --logout` first removes them.',
    arity: [1, 1],
    options: [...HOST_OPTIONS, 'help'],
    load: async () => (await import('./commands/remove-command.js')).removeCommand,
  },
  check: {
    usage: 'check [SERVER]',
    summary: 'start every enabled server (or SERVER) and report, exit 2 if any fails',
    details:
      'Like list --refresh: dials each enabled server (or only SERVER), never answering from a saved\ncatalog, and prints the same report. Exit status 2 when any checked server is in error or needs\nsign-in, so it fits scripts and CI.',
    arity: [0, 1],
    options: [...HOST_OPTIONS, 'help'],
    load: async () => (await import('./commands/check-command.js')).checkCommand,
  },
  auth: {
    usage: 'auth SERVER [--no-browser | --logout]',
    summary: 'sign in to (or out of) an HTTP server that needs OAuth',
    details:
      "Opens the browser at the server's sign-in page (or prints the URL with --no-browser) and waits\nfor the redirect on a loopback port of this machine; the tokens are stored for later commands.\n--logout removes them instead. With --ssh the browser and the redirect listener stay here;\nrequests and token files are the remote machine's.\n  berry-mcp auth docs\n  berry-mcp auth docs --logout",
    arity: [1, 1],
    arityError: (positionals) => `"auth" takes 1 argument (the server name), got ${positionals.length}`,
    options: [...HOST_OPTIONS, 'no-browser', 'logout', 'timeout', 'help'],
    numbers: { timeout: positive },
    optionHelp: { timeout: 'how long to wait for the sign-in (default 300)' },
    load: async () => (await import('./commands/auth-command.js')).authCommand,
  },
  serve: {
    usage: 'serve [--http [HOST:]PORT]',
    summary: 'code mode as an MCP server (one tool: run)',
    details:
      "Speaks MCP over stdio (stdout carries only the MCP stream), or Streamable HTTP at /mcp with\n--http, where every request needs Authorization: Bearer $BERRY_SERVE_TOKEN (or the token printed\nat start, or a token of --token-file: each token is a holder, with caps of its own on runs,\nsessions and streams). Its one tool, run, runs a script as `berry-mcp run` does, against the\nconfigured servers. Its description fits 2,048 characters (what Claude Code keeps);\n--signatures adds every tool's TypeScript signature, for clients that show a description whole.\nIt exits when the client closes its stdin, or on SIGINT/SIGTERM.\n  berry-mcp serve --config ~/.config/berry/mcp.json\n  berry-mcp serve --signatures --config ~/.config/berry/mcp.json\n  berry-mcp serve --http 8080\n  berry-mcp serve --http 8080 --token-file ~/.config/berry/serve-tokens",
    arity: [0, 0],
    arityError: (positionals) => `"serve" takes no arguments, got ${positionals.map((p) => `"${p}"`).join(' ')}`,
    options: [
      ...SERVE_HOST_OPTIONS,
      'http',
      'token-file',
      'allow-origin',
      'max-concurrency',
      'max-client-concurrency',
      'max-holder-concurrency',
      'max-queued-runs',
      'max-sessions',
      'max-holder-sessions',
      'max-holder-streams',
      'workers',
      'state-idle',
      'timeout',
      'memory',
      'output-limit',
      'signatures',
      'confirm-writes',
      'no-check',
      'otel-capture-arguments',
      'help',
    ],
    numbers: {
      'max-concurrency': positiveWhole,
      'max-client-concurrency': positiveWhole,
      'max-holder-concurrency': positiveWhole,
      'max-queued-runs': positiveWhole,
      'max-sessions': positiveWhole,
      'max-holder-sessions': positiveWhole,
      'max-holder-streams': positiveWhole,
      workers: SERVE_WORKERS,
      'state-idle': positiveWhole,
      timeout: positive,
      memory: positive,
      'output-limit': bytesAtLeast(1024),
    },
    optionHelp: {
      timeout: "a run's default and maximum wall-clock limit (default 300)",
      memory: 'isolate memory limit of each run (default 128)',
      'confirm-writes': "ask the client's user (elicitation) before each call to a tool that may write; refused when the client cannot be asked",
      'no-check': 'run scripts without first checking their tools.* calls against the servers (see docs/scripts.md)',
    },
    load: async () => (await import('./commands/serve-command.js')).serveCommand,
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;
