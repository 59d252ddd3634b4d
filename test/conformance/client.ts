/**
 * The client under test of the official MCP conformance suite: berry-mcp's own library (createHost,
 * then list, describe and call), never the SDK Client directly.
 *
 *   node --no-node-snapshot dist/test/conformance/client.js <server-url>
 *
 * The suite appends the URL of its test server and sets MCP_CONFORMANCE_SCENARIO. Every scenario is
 * driven the same way: list the server's tools and call each with arguments made from its schema;
 * elicitations are accepted with an empty form, so the schema's defaults are what the server gets.
 * Authorization scenarios sign in through onAuthorizationUrl (a "browser" that follows the redirects)
 * with the suite's MCP_CONFORMANCE_CONTEXT as the entry's `oauth` block.
 * Exit status 0 when every step worked, 1 otherwise.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/index.js';

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
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { [SERVER]: { url, oauth } } }));
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
    if (!status || status.status !== 'connected') {
      log(`not connected: ${status?.status === 'error' ? `${status.error.code}: ${status.error.message}` : String(status?.status)}`);
      return 1;
    }
    log(`tools: ${status.tools.map((t) => t.name).join(', ') || '(none)'}`);
    for (const { name } of status.tools) {
      const described = await host.describe({ server: SERVER, tool: name, schemas: true });
      const args = sampleFor('inputSchema' in described ? described.inputSchema : {}) as Record<string, unknown>;
      const result = await host.call({ server: SERVER, tool: name, arguments: args });
      log(`${name}(${JSON.stringify(args)}) -> ${JSON.stringify(result).slice(0, 300)}`);
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
