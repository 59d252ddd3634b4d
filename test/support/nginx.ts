// A private nginx on loopback in front of serve replicas, configured by the file the docs ship
// (docs/fleet/nginx.conf) with the upstream addresses and the port filled in.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { closedPort } from './network.js';
import { PROJECT_ROOT } from './paths.js';
import { tempDir } from './temp-dir.js';

/** The fleet's nginx configuration as documented (an http {} block include). */
export const FLEET_NGINX_CONF: string = path.join(PROJECT_ROOT, 'docs', 'fleet', 'nginx.conf');

const NGINX = process.env['NGINX'] ?? '/usr/sbin/nginx';

/** True when the nginx binary is installed (CI installs it; elsewhere the fleet suites skip). */
export function nginxInstalled(): boolean {
  return existsSync(NGINX);
}

/** One access log line: which replica(s) nginx passed a request to, and what came back. */
export interface NginxAccess {
  readonly client: string;
  readonly method: string;
  readonly uri: string;
  readonly status: number;
  /** `$upstream_addr`: one address, or several (`a, b`) when nginx passed the request on after an error. */
  readonly upstreams: string[];
}

export interface Nginx {
  /** http://127.0.0.1:PORT/mcp */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The configuration file as rendered from the documented one. */
  readonly conf: string;
  access(): NginxAccess[];
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * The documented file with `upstreams` (`host:port`) in place of its `server` lines (each keeps the
 * parameters the docs give) and `listen 127.0.0.1:PORT`. Throws if the file no longer has the shape
 * this relies on, so the tested file cannot drift from the documented one unnoticed.
 */
export function renderFleetConf(template: string, upstreams: readonly string[], port: number): string {
  const servers = [...template.matchAll(/^([ \t]*)server[ \t]+(\S+)([^;\n]*);[ \t]*\n/gm)];
  if (servers.length === 0) throw new Error('docs/fleet/nginx.conf: no upstream server lines');
  const [first] = servers;
  const indent = first![1]!;
  const params = first![3]!;
  const lines = upstreams.map((u) => `${indent}server ${u}${params};\n`).join('');
  let out = template.slice(0, first!.index) + lines + template.slice(servers.at(-1)!.index! + servers.at(-1)![0].length);
  const listens = out.match(/^[ \t]*listen[ \t]+[^;\n]+;/gm) ?? [];
  if (listens.length !== 1) throw new Error(`docs/fleet/nginx.conf: expected one listen line, found ${listens.length}`);
  out = out.replace(/^([ \t]*)listen[ \t]+[^;\n]+;/m, `$1listen 127.0.0.1:${port};`);
  return out;
}

/** nginx (master and one worker, no daemon) with its own prefix, logs and temp paths in a temp dir, in front of `upstreams`. */
export async function startNginx(upstreams: readonly string[]): Promise<Nginx> {
  const tmp = tempDir('berry-nginx-');
  const dir = tmp.dir;
  // As root nginx's worker runs as nobody: it must reach its temp paths under this dir.
  chmodSync(dir, 0o755);
  // Free now; nginx binds it a moment later.
  const port = await closedPort();
  writeFileSync(path.join(dir, 'berry.conf'), renderFleetConf(readFileSync(FLEET_NGINX_CONF, 'utf8'), upstreams, port));
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
error_log ${dir}/error.log info;
events { worker_connections 1024; }
http {
    log_format fleet '$remote_addr "$request_method $request_uri" $status "$upstream_addr"';
    access_log ${dir}/access.log fleet;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${dir}/berry.conf;
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', `${dir}/`, '-e', `${dir}/error.log`, '-c', conf, '-g', `daemon off; pid ${dir}/nginx.pid;`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = (): string => (existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : '');
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    tmp.cleanup();
  };
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const why = `nginx did not start (exit ${child.exitCode}); stderr:\n${stderr}\nerror.log:\n${errorLog()}`;
      await stop();
      throw new Error(why);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    pid: child.pid!,
    conf: path.join(dir, 'berry.conf'),
    access: () => parseAccess(existsSync(path.join(dir, 'access.log')) ? readFileSync(path.join(dir, 'access.log'), 'utf8') : ''),
    errorLog,
    stop,
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function parseAccess(text: string): NginxAccess[] {
  const out: NginxAccess[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+) "(\S+) (\S+)" (\d+) "([^"]*)"$/.exec(line);
    if (m === null) continue;
    const upstreams = m[5] === '-' ? [] : m[5]!.split(/, | : /);
    out.push({ client: m[1]!, method: m[2]!, uri: m[3]!, status: Number(m[4]), upstreams });
  }
  return out;
}
