/**
 * A real redis-server for the store tests: its own port on loopback, its own temporary folder and
 * no background persistence; stopped by its PID. `stop({ keepData: true })` SAVEs first (dump.rdb
 * in its folder), so `restart` (same port, same folder) comes back with the data, as a fleet's
 * Redis does after an outage.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedPort } from './network.js';
import { tempDir } from './temp-dir.js';

export interface RedisServer {
  /** redis://127.0.0.1:PORT/0 */
  readonly url: string;
  readonly port: number;
  /** The PID of the redis-server running now. */
  readonly pid: number;
  /** Stops it (SIGTERM, waits for the exit). `keepData`: SAVE first and keep the folder, for `restart`. */
  stop(options?: { readonly keepData?: boolean }): Promise<void>;
  /** Starts it again on the same port and folder (after a stop, or it stops it keeping its data first). */
  restart(): Promise<void>;
}

export const REDIS_SERVER = '/usr/bin/redis-server';

export async function startRedis(): Promise<RedisServer> {
  const port = await closedPort();
  const dir = tempDir('berry-redis-');
  let child: ChildProcess | undefined = await launch(port, dir.dir);
  const stopChild = async (keepData: boolean): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    if (keepData) await ask(port, 'SAVE');
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    get pid() {
      return child?.pid ?? -1;
    },
    async stop(options = {}) {
      await stopChild(options.keepData === true);
      if (options.keepData !== true) dir.cleanup();
    },
    async restart() {
      await stopChild(true);
      child = await launch(port, dir.dir);
    },
  };
}

async function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start: ${stderr.slice(0, 500)}`);
    }
    await sleep(50);
  }
  return child;
}

/** True when something on `port` answers PING with +PONG. */
async function answersPing(port: number): Promise<boolean> {
  return (await ask(port, 'PING')).startsWith('+PONG');
}

/** Sends one inline command to the server on `port`; its first reply, or '' when none came within 5 s. */
async function ask(port: number, command: string): Promise<string> {
  const socket = new Socket();
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(port, '127.0.0.1', resolve);
    });
    socket.write(`${command}\r\n`);
    const [data] = (await Promise.race([once(socket, 'data'), sleep(5000).then(() => [Buffer.alloc(0)])])) as [Buffer];
    return data.toString();
  } catch {
    return '';
  } finally {
    socket.destroy();
  }
}
