// `berry-mcp serve` as a child process with an SDK client connected (stdio or Streamable HTTP), and `run`.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PROJECT_ROOT } from './paths.js';

export const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

export interface StdioServe {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  stderr(): string;
  close(): Promise<void>;
}

/** `berry-mcp serve ARGS` as a child process, with the SDK Client connected over stdio. */
export async function serveStdio(
  args: string[],
  options: { cwd: string; capabilities?: ConstructorParameters<typeof Client>[1]; env?: Record<string, string> },
): Promise<StdioServe> {
  const env = { ...(process.env as Record<string, string>), ...options.env };
  // No agent: the key file given with --identity is the only credential.
  delete env['SSH_AUTH_SOCK'];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args],
    cwd: options.cwd,
    stderr: 'pipe',
    env,
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'serve-test', version: '1.0.0' }, options.capabilities);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

export interface HttpServe {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** A Client over Streamable HTTP sending `Authorization: Bearer <token>`. */
  connect(token: string, capabilities?: ConstructorParameters<typeof Client>[1]): Promise<Client>;
  close(): Promise<void>;
}

/** `berry-mcp serve --http 127.0.0.1:0 ARGS`, waiting for its "listening on URL" line. */
export async function serveHttp(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<HttpServe> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '127.0.0.1:0', ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout!.resume();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not start; stderr:\n${stderr}`)), 20_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const match = /listening on (\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited (${code}); stderr:\n${stderr}`));
    });
  });
  const clients: Client[] = [];
  return {
    url,
    child,
    stderr: () => stderr,
    async connect(token, capabilities) {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
      const client = new Client({ name: 'serve-http-test', version: '1.0.0' }, capabilities);
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Calls `run` with `code`. */
export async function run(
  client: Client,
  code: string,
  options: { timeoutSeconds?: number; signal?: AbortSignal; onprogress?: (p: { progress: number; message?: string }) => void } = {},
): Promise<CallToolResult> {
  return (await client.callTool(
    { name: 'run', arguments: { code, ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }) } },
    undefined,
    {
      timeout: 120_000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
    },
  )) as CallToolResult;
}

/** The text blocks of a result. */
export function texts(result: CallToolResult): string[] {
  return result.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
}
