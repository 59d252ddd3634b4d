import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, type HttpServe, run, serveHttp, texts } from '../support/berry-serve.js';
import { PARK, parksHere } from '../support/parking.js';
import { peakMb, rssMb, servePidOf, workerPidsOf } from '../support/process-memory.js';
import { processAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

/**
 * Attacks on "a script's memory is bounded for the process, not only for the isolate" (issue 31,
 * class 1), each through a real `berry-mcp serve` and an SDK client, measuring the resident memory
 * of serve's own process and of its run workers (/proc), not the isolate's heap. The documented
 * bounds (docs/reliability.md): serve's RSS after any one run within SERVE_MARGIN_MB of its
 * baseline; a guarded builtin refuses before it copies, so neither process grows.
 */
const TOKEN = 'adversarial-memory-token-0123456789';
/** What serve may keep above its baseline after a hostile run (docs/reliability.md). */
const SERVE_MARGIN_MB = 32;
/** A rope of 2^28 characters, one byte each or two: built by doubling, it costs almost nothing. */
const ROPE = 'let s = "ab"; while (s.length < 2 ** 28) s = s + s;';
const TWO_BYTE_ROPE = 'let s = "a\\u1234"; while (s.length < 2 ** 28) s = s + s;';
/** A hash table grown past the limit: V8 gives up, isolated-vm parks the isolate with its memory. */

const errorOf = (result: CallToolResult): { code?: string; name?: string; message?: string } =>
  (result.structuredContent?.['error'] as { code?: string; name?: string; message?: string } | undefined) ?? {};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends PARK until V8 gives up on it (SCRIPT_MEMORY_LIMIT; the V8 of Node 24 sometimes throws "Map
 * maximum size exceeded" instead, a plain SCRIPT_ERROR): at most 6 tries.
 */
async function park(send: () => Promise<CallToolResult>): Promise<CallToolResult> {
  let result = await send();
  for (let tries = 1; tries < 6 && /maximum size exceeded/.test(errorOf(result).message ?? ''); tries++) result = await send();
  assert.equal(errorOf(result).code, 'SCRIPT_MEMORY_LIMIT', texts(result).join('\n'));
  return result;
}

describe('adversarial: memory, bounded for the process (serve runs scripts in worker processes it can throw away)', function () {
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  const serves: HttpServe[] = [];

  before(() => {
    tmp = tempDir('berry-adversarial-memory-');
    writeConfig(tmp.dir, {});
  });
  after(async () => {
    await Promise.all(serves.map((s) => s.close()));
    tmp.cleanup();
  });

  /** serve --http with ARGS, a client, serve's pid and its RSS baseline after some warm runs. */
  const start = async (args: string[]): Promise<{ serve: HttpServe; client: Client; pid: number; baseline: number }> => {
    const serve = await serveHttp(['--config', 'mcp.json', ...args], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
    serves.push(serve);
    const client = await serve.connect(TOKEN);
    for (let i = 0; i < 20; i++) assert.equal((await run(client, 'return 1')).structuredContent?.['result'], 1);
    const pid = servePidOf(serve.child.pid!);
    await sleep(300);
    return { serve, client, pid, baseline: rssMb(pid)! };
  };
  const nearBaseline = async (pid: number, baseline: number, what: string): Promise<void> => {
    await waitFor(
      () => rssMb(pid)! <= baseline + SERVE_MARGIN_MB,
      10_000,
      `serve's RSS back within ${SERVE_MARGIN_MB} MB of ${baseline.toFixed(0)} MB after ${what} (now ${rssMb(pid)?.toFixed(0)} MB)`,
    );
  };

  describe('serve --workers 1 --memory 32: huge ropes', () => {
    let s: Awaited<ReturnType<typeof start>>;
    before(async () => {
      s = await start(['--workers', '1', '--memory', '32']);
    });

    it('match(/a/g) over a 2^28-character rope fails with a RangeError the script can catch, nothing is parked, serve keeps its baseline', async () => {
      const caught = await run(s.client, `${ROPE} try { s.match(/a/g); } catch (e) { return e.name; }`);
      assert.equal(caught.structuredContent?.['result'], 'RangeError', texts(caught).join('\n'));
      // Before: V8 gave up, isolated-vm parked the isolate, and serve kept +1.6 GB for good.
      const worker = workerPidsOf(s.pid)[0]!;
      const result = await run(s.client, `${ROPE} return s.match(/a/g).length;`);
      assert.equal(errorOf(result).name, 'RangeError', texts(result).join('\n'));
      await nearBaseline(s.pid, s.baseline, 'the match');
      assert.deepEqual(workerPidsOf(s.pid), [worker], 'the same worker, not replaced: nothing was parked');
      assert.equal((await run(s.client, 'return 6 * 7')).structuredContent?.['result'], 42);
    });

    it("JSON.stringify of a two-byte 2^28 rope is refused before the copy: serve's and the worker's peak RSS stay put", async () => {
      const worker = workerPidsOf(s.pid)[0]!;
      const [servePeak, workerPeak] = [peakMb(s.pid)!, peakMb(worker)!];
      const result = await run(s.client, `${TWO_BYTE_ROPE} return JSON.stringify(s).length;`);
      assert.equal(errorOf(result).name, 'RangeError', texts(result).join('\n'));
      assert.match(errorOf(result).message!, /JSON\.stringify: a string of 268435456 characters/);
      // Before: +1 GB in serve on the way to SCRIPT_MEMORY_LIMIT, 33 times the run's limit.
      assert.ok(peakMb(s.pid)! - servePeak <= 8, `serve peaked +${(peakMb(s.pid)! - servePeak).toFixed(0)} MB`);
      assert.ok(peakMb(worker)! - workerPeak <= 3 * 32, `the worker peaked +${(peakMb(worker)! - workerPeak).toFixed(0)} MB`);
    });

    it('the cheapest variants (case change, normalize, join, encode, replace with a function, text(), console.log, the return value) neither copy nor grow', async () => {
      const worker = workerPidsOf(s.pid)[0]!;
      const [servePeak, workerPeak] = [peakMb(s.pid)!, peakMb(worker)!];
      const variants: Record<string, string> = {
        upper: `${TWO_BYTE_ROPE} return s.toUpperCase().length;`,
        lower: `${ROPE} return s.toLocaleLowerCase().length;`,
        normalize: `${TWO_BYTE_ROPE} return s.normalize('NFD').length;`,
        join: `${TWO_BYTE_ROPE} return [s, 'x'].join('').length;`,
        joinInTemplate: `${TWO_BYTE_ROPE} return \`\${[s, 'x']}\`.length;`,
        encode: `${ROPE} return encodeURIComponent(s).length;`,
        // This one killed the whole process: V8's fatal "invalid size" (2^27 matches).
        replaceWithFunction: `${ROPE} return s.replace(/a/g, () => 'b').length;`,
        symbolSplit: `${ROPE} return /(?:)/[Symbol.split](s).length;`,
        replaceAll: `${ROPE} return s.replaceAll('a', 'b').length;`,
        text: `${TWO_BYTE_ROPE} text(s);`,
        textInObject: `${TWO_BYTE_ROPE} text({ s });`,
        log: `${TWO_BYTE_ROPE} console.log('x', s);`,
        thrown: `${TWO_BYTE_ROPE} throw new Error(s);`,
      };
      for (const [name, code] of Object.entries(variants)) {
        const result = await run(s.client, code);
        assert.equal(result.isError, true, `${name}: ${texts(result).join('\n')}`);
        if (name !== 'thrown') assert.match(texts(result).join('\n'), /RangeError|TypeError/, name);
      }
      for (const [name, code] of Object.entries({ returned: `${TWO_BYTE_ROPE} return s;`, returnedInArray: `${TWO_BYTE_ROPE} return [s];` })) {
        const result = await run(s.client, code);
        assert.match(errorOf(result).message ?? '', /The return value is larger than/, name);
      }
      assert.ok(peakMb(s.pid)! - servePeak <= 8, `serve peaked +${(peakMb(s.pid)! - servePeak).toFixed(0)} MB`);
      assert.ok(peakMb(worker)! - workerPeak <= 3 * 32, `the worker peaked +${(peakMb(worker)! - workerPeak).toFixed(0)} MB`);
      assert.deepEqual(workerPidsOf(s.pid), [worker]);
    });

    it('a builtin that works on past the run (replaceAll under the guard, near the limit): its worker is retired and killed, its memory and CPU come back', async () => {
      const before = workerPidsOf(s.pid);
      // 2^24 characters: under the guard (half of 32 MB); replaceAll then builds its result past the
      // limit without ever checking for termination, and went on for minutes after the run ended.
      const code = "let s = 'aa'; while (s.length < 2 ** 24) s = s + s; return s.replaceAll('a', 'bb').length;";
      const result = await run(s.client, code, { timeoutSeconds: 3 });
      assert.match(errorOf(result).code ?? '', /^SCRIPT_(MEMORY_LIMIT|TIMEOUT)$/, texts(result).join('\n'));
      await waitFor(() => before.every((pid) => !processAlive(pid)), 10_000, 'the worker that ran it to be killed');
      await waitFor(() => workerPidsOf(s.pid).length === 1, 10_000, 'a new worker');
      await nearBaseline(s.pid, s.baseline, 'the replaceAll');
      assert.equal((await run(s.client, 'return 6 * 7')).structuredContent?.['result'], 42);
    });
  });

  describe('serve --workers 2 --memory 256: catastrophes (a Map grown past the limit parks its isolate)', () => {
    let s: Awaited<ReturnType<typeof start>>;
    before(async function () {
      if (!parksHere()) this.skip();
      s = await start(['--workers', '2', '--memory', '256']);
    });

    it("the parked isolate's worker is killed and replaced; serve's RSS stays at its baseline; the next run works", async () => {
      const before = workerPidsOf(s.pid);
      assert.equal(before.length, 2);
      await park(() => run(s.client, PARK));
      // Before: the parked isolate lived in serve (a worker thread) and kept its memory for good.
      await waitFor(() => before.filter((pid) => !processAlive(pid)).length === 1, 10_000, 'the worker that parked to be killed');
      await waitFor(() => workerPidsOf(s.pid).length === 2, 10_000, 'a new worker in its place');
      await nearBaseline(s.pid, s.baseline, 'the catastrophe');
      assert.equal((await run(s.client, 'return 6 * 7')).structuredContent?.['result'], 42);
    });

    it("several hostile runs at once beside another client's runs: serve stays at its baseline, only the hostile runs' workers go", async () => {
      const other = await s.serve.connect(TOKEN);
      const hostile = [PARK, PARK, `${TWO_BYTE_ROPE} return JSON.stringify(s).length;`, `${ROPE} return s.match(/a/g).length;`];
      // Five runs in a row, each busy for a while, so that they overlap the hostile ones.
      const innocent = async (): Promise<unknown> => {
        const answers = [];
        while (answers.length < 5) {
          const result = await run(other, 'let x = 0; for (let i = 0; i < 3e7; i++) x += i % 7; return 6 * 7;');
          // A run that shared a worker with a catastrophe fails with a typed error that says to run it again.
          if (errorOf(result).code === 'SERVE_WORKER_FAILED') assert.match(errorOf(result).message!, /run it again/);
          else answers.push(result.structuredContent?.['result'] ?? texts(result).join('\n'));
        }
        return answers;
      };
      const [results, answers] = await Promise.all([
        Promise.all(hostile.map((code) => run(s.client, code))),
        Promise.all([innocent(), innocent(), innocent()]),
      ]);
      for (const result of results) assert.equal(result.isError, true, texts(result).join('\n'));
      assert.deepEqual(answers, Array(3).fill(Array(5).fill(42)));
      await nearBaseline(s.pid, s.baseline, 'four hostile runs at once');
      await waitFor(() => workerPidsOf(s.pid).length === 2, 10_000, 'two workers again');
    });
  });

  describe('serve ends when told, whatever a script did', () => {
    before(function () {
      // On Node 24 and 26 nothing parks (support/parking.ts): these would test only what test/serve does.
      if (!parksHere()) this.skip();
    });

    it('on SIGTERM within a few seconds after a catastrophe in a worker', async () => {
      const serve = await serveHttp(['--config', 'mcp.json', '--workers', '2', '--memory', '256'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
      serves.push(serve);
      const client = await serve.connect(TOKEN);
      const pid = servePidOf(serve.child.pid!);
      const workers = workerPidsOf(pid);
      await park(() => run(client, PARK));
      const exited = new Promise<number | null>((resolve) => serve.child.once('exit', resolve));
      const started = performance.now();
      serve.child.kill('SIGTERM');
      // Before: serve ignored SIGTERM (the parked isolate lived in a worker thread that bin.ts did not count).
      assert.equal(await exited, 0);
      assert.ok(performance.now() - started < 5_000, `exited after ${(performance.now() - started).toFixed(0)} ms`);
      await waitFor(() => !processAlive(pid) && [...workers, ...workerPidsOf(pid)].every((w) => !processAlive(w)), 5_000, 'serve and its workers to be gone');
    });

    for (const workers of ['2', '0']) {
      it(`when its stdin closes, within a few seconds after a catastrophe (stdio, --workers ${workers})`, async () => {
        const serve = spawn(process.execPath, [BIN, 'serve', '--config', 'mcp.json', '--workers', workers, '--memory', '256'], {
          cwd: tmp.dir,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        const exited = new Promise<number | null>((resolve) => serve.once('exit', resolve));
        try {
          const rpc = jsonRpc(serve);
          await rpc.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'adversarial', version: '1' } });
          rpc.notify('notifications/initialized');
          // With --workers 0 serve also stops by itself once the isolate is parked: whichever comes first.
          const send = (): Promise<CallToolResult> => rpc.request('tools/call', { name: 'run', arguments: { code: PARK } }) as Promise<CallToolResult>;
          if (workers === '0') await Promise.race([send(), exited]);
          else await park(send);
          const started = performance.now();
          serve.stdin!.end();
          await exited;
          assert.ok(performance.now() - started < 5_000, `exited after ${(performance.now() - started).toFixed(0)} ms`);
        } finally {
          serve.kill('SIGKILL');
        }
      });
    }

    it('with --workers 0 (the parked isolate is in serve itself) serve says why and stops by itself, status 1', async () => {
      const serve = await serveHttp(['--config', 'mcp.json', '--workers', '0', '--memory', '256'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
      serves.push(serve);
      const client = await serve.connect(TOKEN);
      const exited = new Promise<number | null>((resolve) => serve.child.once('exit', resolve));
      const started = performance.now();
      // V8 gives up on PARK nearly always at 256 MB, not always: a run it survived answers, and the
      // script is sent again (the SDK client never settles the request of the run that parked).
      let answered = 0;
      let status: number | null | 'running' = 'running';
      for (let attempt = 0; attempt < 5 && status === 'running'; attempt++) {
        const answer = run(client, PARK).then(
          () => 'answered' as const,
          () => 'answered' as const,
        );
        const first = await Promise.race([answer, exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 60_000))]);
        if (first === 'running') break;
        if (first === 'answered') answered++;
        else status = first;
      }
      // Before: serve went on holding the isolate's memory, and each such run added as much again.
      assert.equal(status, 1, `serve did not stop (${answered} runs answered without parking); stderr: ${serve.stderr().slice(-2000)}`);
      assert.ok(performance.now() - started < 30_000 * (answered + 1));
      assert.match(serve.stderr(), /ran out of memory in a way V8 cannot recover from.*--workers 1 or more/s);
    });
  });
});

/** A minimal JSON-RPC client over a child's stdio, one JSON message a line. */
function jsonRpc(child: ChildProcess): { request(method: string, params: unknown): Promise<unknown>; notify(method: string): void } {
  let nextId = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? message.error);
  });
  child.stderr!.resume();
  const send = (message: object): void => void child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return {
    request: (method, params) =>
      new Promise((resolve) => {
        const id = ++nextId;
        waiting.set(id, resolve);
        send({ id, method, params });
      }),
    notify: (method) => send({ method }),
  };
}
