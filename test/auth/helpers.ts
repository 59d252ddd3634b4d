/**
 * Shared by the auth tests: a stand-in for the user's browser that follows the authorization
 * server's redirects to berry-mcp's loopback listener, and a host wired to a temp token dir.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type Host } from '../../src/host.js';
import type { LogEvent } from '../../src/bindings/index.js';

/** Fetches `url` and follows every redirect (to our /callback too), like a browser that approves. */
export async function browser(url: string): Promise<void> {
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: 'manual' });
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (!location) return;
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

export interface TestHost {
  readonly host: Host;
  readonly logs: LogEvent[];
  /** Every authorization URL the host asked to open. */
  readonly urls: string[];
}

export function testHost(configPath: string, tokenDir: string, interactive = true): TestHost {
  const logs: LogEvent[] = [];
  const urls: string[] = [];
  const host = createHost({
    configPath,
    tokenDir,
    onLog: (event) => logs.push(event),
    ...(interactive
      ? {
          onAuthorizationUrl: async (url: string) => {
            urls.push(url);
            await browser(url);
          },
        }
      : {}),
  });
  return { host, logs, urls };
}

/** Test hosts that a test's afterEach closes: `open` makes one (as testHost), `closeAll` ends them all. */
export function testHosts(): {
  open(configPath: string, tokenDir: string, interactive?: boolean): TestHost;
  closeAll(): Promise<void>;
} {
  const made: TestHost[] = [];
  return {
    open(configPath, tokenDir, interactive = true) {
      const one = testHost(configPath, tokenDir, interactive);
      made.push(one);
      return one;
    },
    async closeAll() {
      await Promise.all(made.splice(0).map((one) => one.host.close()));
    },
  };
}

/** Every token value in the token dir's records (to check they never leak). */
export function storedSecrets(tokenDir: string): string[] {
  const secrets: string[] = [];
  for (const name of readdirSync(tokenDir)) {
    if (!name.endsWith('.json')) continue;
    const record = JSON.parse(readFileSync(join(tokenDir, name), 'utf8')) as {
      tokens?: { access_token?: string; refresh_token?: string };
      client?: { client_secret?: string };
    };
    for (const value of [record.tokens?.access_token, record.tokens?.refresh_token, record.client?.client_secret]) {
      if (value) secrets.push(value);
    }
  }
  return secrets;
}

export function firstText(result: { content?: unknown[] }): string {
  return (result.content as { type: string; text: string }[])[0]!.text;
}

/** Switches the OAuth fixture's faults (`endless=token`, `iss=wrong`, …; '' for none). */
export async function setFault(base: string, query: string): Promise<void> {
  const res = await fetch(`${base}/admin/fault${query ? `?${query}` : ''}`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /admin/fault answered ${res.status}`);
  await res.body?.cancel();
}

const CHILD_CALL = fileURLToPath(new URL('./child-call.js', import.meta.url));

export interface CallChild {
  ready: Promise<void>;
  go(): void;
  result: Promise<{ ok: boolean; code?: string; message?: string }>;
}

/** test/auth/child-call.js in a process of its own: `ready` once connected, the call on go(); `store` puts its records in that shared store. */
export function startCallChild(configPath: string, tokenDir: string, store?: string): CallChild {
  const child = spawn(process.execPath, ['--no-node-snapshot', CHILD_CALL, configPath, tokenDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
    ...(store === undefined ? {} : { env: { ...process.env, BERRY_STORE: store } }),
  });
  let out = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const result = new Promise<{ ok: boolean }>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready\n')) onReady();
    });
    child.once('exit', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as { ok: boolean });
      } catch {
        reject(new Error(`child printed ${JSON.stringify(out)}`));
      }
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), result };
}
