/**
 * The client under test of the official MCP conformance suite: berry-mcp's own library (createHost,
 * then list, describe and call), never the SDK Client directly.
 *
 *   node --no-node-snapshot dist/test/conformance/client.js <server-url>
 *
 * The suite appends the URL of its test server and sets MCP_CONFORMANCE_SCENARIO. A scenario is
 * driven by what it gives and asks: list the server's tools, then call the tool calls the suite's
 * MCP_CONFORMANCE_CONTEXT names (`toolCalls`), else every tool with arguments made from its schema
 * (SCENARIO_STEPS holds the few scenarios that ask for something else); elicitations are accepted
 * with an empty form, so the schema's defaults are what the server gets.
 * Authorization scenarios sign in through onAuthorizationUrl (a "browser" that follows the redirects)
 * with the suite's MCP_CONFORMANCE_CONTEXT as the entry's `oauth` block.
 * Exit status 0 when every step worked, 1 otherwise.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, type Host } from '../../src/index.js';

const SERVER = 'conformance';
/** The client ID metadata document the suite's CIMD scenario serves (auth/basic-cimd). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * The `oauth` block of the entry: the suite's MCP_CONFORMANCE_CONTEXT (pre-registered client,
 * client credentials with a secret or a private key) as a user would write it in mcp.json.
 */
export function oauthFromContext(scenario: string, context: string | undefined): Record<string, unknown> {
  const given = context ? (JSON.parse(context) as Record<string, unknown>) : {};
  const oauth: Record<string, unknown> = { clientMetadataUrl: CLIENT_METADATA_URL };
  if (typeof given['client_id'] === 'string') oauth['clientId'] = given['client_id'];
  if (typeof given['client_secret'] === 'string') oauth['clientSecret'] = given['client_secret'];
  if (typeof given['private_key_pem'] === 'string') {
    oauth['privateKey'] = given['private_key_pem'];
    oauth['signingAlgorithm'] = typeof given['signing_algorithm'] === 'string' ? given['signing_algorithm'] : 'ES256';
  }
  if (scenario.startsWith('auth/client-credentials')) oauth['grant'] = 'client_credentials';
  return oauth;
}

interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The tool calls a scenario asks for in its context (http-custom-headers), or undefined. */
export function toolCallsFromContext(context: string | undefined): ToolCall[] | undefined {
  const given = context ? (JSON.parse(context) as { toolCalls?: unknown }) : {};
  if (!Array.isArray(given.toolCalls)) return undefined;
  return given.toolCalls.map((call: { name?: unknown; arguments?: unknown }) => ({
    name: String(call.name),
    arguments: typeof call.arguments === 'object' && call.arguments !== null ? (call.arguments as Record<string, unknown>) : {},
  }));
}

type Step = (host: Host, tools: readonly string[], log: (text: string) => void) => Promise<void>;

async function inputSchemaOf(host: Host, tool: string): Promise<unknown> {
  const described = await host.describe({ server: SERVER, tool, schemas: true });
  return 'inputSchema' in described ? described.inputSchema : {};
}

/** Scenarios whose server asks the client for something other than "call every tool". */
const SCENARIO_STEPS: Record<string, Step> = {
  // Every MRTR tool; a result the server got wrong on purpose (test_mrtr_no_result_type has no
  // resultType, which 2026-07-28 requires) is refused by berry-mcp and logged: the checks judge
  // what went over the wire (no retry).
  'sep-2322-client-request-state': async (host, tools, log) => {
    for (const tool of tools) {
      try {
        log(`${tool} -> ${JSON.stringify(await host.call({ server: SERVER, tool, arguments: {} })).slice(0, 300)}`);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'MCP_PROTOCOL_ERROR') throw error;
        log(`${tool} refused: ${(error as Error).message.slice(0, 300)}`);
      }
    }
  },
  // Its server answers tools/list only: reading the schemas is the test (no network $ref is fetched).
  'json-schema-ref-no-deref': async (host, tools, log) => {
    for (const tool of tools) log(`${tool} schema: ${JSON.stringify(await inputSchemaOf(host, tool)).slice(0, 300)}`);
  },
  // Hand the focal tool's inputSchema back, verbatim, through the echo tool.
  'json-schema-2020-12-preservation': async (host, tools, log) => {
    const focal = tools.find((t) => t !== 'json_schema_echo');
    if (!focal) throw new Error('the server listed no tool besides json_schema_echo');
    const result = await host.call({ server: SERVER, tool: 'json_schema_echo', arguments: { schema: await inputSchemaOf(host, focal) } });
    log(`json_schema_echo -> ${JSON.stringify(result).slice(0, 300)}`);
  },
};

/** The user's browser: follows the authorization server's redirects to berry-mcp's /callback. */
async function browser(url: string): Promise<void> {
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: 'manual' });
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (!location) return;
    next = new URL(location, next).href;
  }
}

/** A value of the schema's type: enough for the suite's tools, which check types, not values. */
export function sampleFor(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as { type?: unknown; default?: unknown; enum?: unknown[]; properties?: Record<string, unknown>; required?: unknown };
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      return 'conformance';
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = Array.isArray(s.required) ? s.required : [];
      for (const [name, property] of Object.entries(s.properties ?? {})) {
        if (required.includes(name)) out[name] = sampleFor(property);
      }
      return out;
    }
    default:
      return null;
  }
}

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) {
    process.stderr.write('usage: client.js <server-url> (the conformance suite appends it)\n');
    return 2;
  }
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '(none)';
  const dir = mkdtempSync(join(tmpdir(), 'berry-conformance-'));
  const oauth = oauthFromContext(scenario, process.env['MCP_CONFORMANCE_CONTEXT']);
  // The entry's protocol stays `auto` (berry-mcp meets the scenario's server as it meets any: a
  // server/discover probe, then the revision it speaks); BERRY_CONFORMANCE_PIN=1 pins it to the
  // revision the suite runs (MCP_CONFORMANCE_PROTOCOL_VERSION), as `"protocol"` in mcp.json would.
  const revision = process.env['MCP_CONFORMANCE_PROTOCOL_VERSION'];
  const protocol = process.env['BERRY_CONFORMANCE_PIN'] === '1' && revision ? { protocol: revision } : {};
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { [SERVER]: { url, oauth, ...protocol } } }));
  const log = (text: string): void => {
    process.stderr.write(`[berry-conformance ${scenario}] ${text}\n`);
  };
  const host = createHost({
    cwd: dir,
    configPath: 'mcp.json',
    onLog: (event) => log(`${event.kind}: ${event.message}`),
    tokenDir: join(dir, 'tokens'),
    signInTimeoutMs: 20_000,
    onAuthorizationUrl: async (authorizationUrl) => {
      log('signing in (following the authorization redirects)');
      await browser(authorizationUrl).catch((error: unknown) => log(`sign-in browser failed: ${String(error)}`));
    },
    onElicitation: async (params) => {
      log(`elicitation (${params.mode ?? 'form'}): ${params.message}; accepting with the defaults`);
      return params.mode === 'url' ? { action: 'decline' } : { action: 'accept', content: {} };
    },
  });
  try {
    const listed = await host.list({ server: SERVER });
    const status = listed.servers[0];
    if (status?.status !== 'connected') {
      log(`not connected: ${status?.status === 'error' ? `${status.error.code}: ${status.error.message}` : String(status?.status)}`);
      return 1;
    }
    const tools = status.tools.map((t) => t.name);
    log(`tools: ${tools.join(', ') || '(none)'}`);
    const step = SCENARIO_STEPS[scenario];
    if (step) {
      await step(host, tools, log);
      return 0;
    }
    const calls = toolCallsFromContext(process.env['MCP_CONFORMANCE_CONTEXT']);
    for (const name of calls ? [] : tools) {
      const args = sampleFor(await inputSchemaOf(host, name)) as Record<string, unknown>;
      const result = await host.call({ server: SERVER, tool: name, arguments: args });
      log(`${name}(${JSON.stringify(args)}) -> ${JSON.stringify(result).slice(0, 300)}`);
    }
    // The suite's arguments as given (http-custom-headers passes verbose: null for an optional boolean).
    for (const call of calls ?? []) {
      const result = await host.call({ server: SERVER, tool: call.name, arguments: call.arguments });
      log(`${call.name}(${JSON.stringify(call.arguments).slice(0, 200)}) -> ${JSON.stringify(result).slice(0, 300)}`);
    }
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    log(`failed: ${typeof code === 'string' ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
