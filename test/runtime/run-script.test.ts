import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isBerryError } from '../../src/common/errors.js';
import type IsolatedVm from 'isolated-vm';
import { IsolatePool, runScript, type HostFunction, type RunRecord, type RunScriptOptions } from '../../src/runtime/index.js';
import { nestedDeeperThan } from '../../src/runtime/json-depth.js';

const echo: HostFunction = async (args) => args;
const run = (code: string, options: Partial<RunScriptOptions> = {}): Promise<RunRecord> =>
  runScript(code, { functions: { echo }, timeoutMs: 10_000, ...options });

describe('runScript', () => {
  describe('results', () => {
    it('runs an async function body: top-level await and return', async () => {
      const record = await run('const a = await tools.echo({ n: 20 });\nconst b = await Promise.resolve(22);\nreturn a.n + b;');
      assert.deepEqual(record, { ok: true, result: 42, outputs: [], logs: [], durationMs: record.durationMs, calls: 1 });
      assert.ok(record.durationMs > 0);
    });

    it('leaves result out when the script returns nothing', async () => {
      const record = await run('await tools.echo(1);');
      assert.equal(record.ok, true);
      assert.equal('result' in record, false);
    });

    it('returns a JSON clone of the value', async () => {
      const record = await run('return { when: new Date(0), list: [1, undefined], skip: undefined, f() {} }');
      assert.deepEqual(record.result, { when: '1970-01-01T00:00:00.000Z', list: [1, null] });
    });

    it('fails with SCRIPT_ERROR when the return value exceeds outputLimitBytes', async () => {
      const record = await run('return "x".repeat(2000)', { outputLimitBytes: 1000 });
      assert.equal(record.ok, false);
      assert.equal(record.error?.code, 'SCRIPT_ERROR');
      assert.equal(record.error?.name, 'RangeError');
      assert.match(record.error?.message ?? '', /larger than 1000 bytes/);
      // Counted in UTF-8 bytes: the JSON of 800 × "é" is 802 characters but 1602 bytes.
      const wide = await run('return "é".repeat(800)', { outputLimitBytes: 1000 });
      assert.equal(wide.error?.code, 'SCRIPT_ERROR');
      assert.equal((await run('return "x".repeat(990)', { outputLimitBytes: 1000 })).ok, true);
    });

    it('fails with a TypeError when the return value is not JSON-serialisable', async () => {
      const record = await run('const a = {}; a.self = a; return a');
      assert.equal(record.error?.name, 'TypeError');
      assert.match(record.error?.message ?? '', /return value cannot be converted to JSON/);
    });

    it('fails with SCRIPT_ERROR when the return value nests too deep for the host to print', async () => {
      const record = await run('let a = [];\nfor (let i = 0; i < 10000; i++) a = [a];\nreturn a;');
      assert.equal(record.error?.code, 'SCRIPT_ERROR');
      assert.match(record.error?.message ?? '', /nests more than 256 levels/);
      const fine = await run('let a = {};\nfor (let i = 0; i < 200; i++) a = { a, s: "[[[[{{{{" };\nreturn a;');
      assert.equal(fine.ok, true);
      assert.doesNotThrow(() => JSON.stringify(fine));
    });

    it('measures nesting outside strings only', () => {
      assert.equal(nestedDeeperThan(`${'['.repeat(5)}${']'.repeat(5)}`, 4), true);
      const inStrings = JSON.stringify([`${'['.repeat(20)}"\\`, `\\"${'{'.repeat(20)}`]);
      assert.equal(nestedDeeperThan(inStrings, 4), false);
      assert.equal(nestedDeeperThan(`[${inStrings},[[[[1]]]]]`, 4), true);
      assert.equal(nestedDeeperThan(`[[1],[2],[3],[4],[5],[6]]`, 2), false);
    });

    it('counts host function calls', async () => {
      const record = await run('for (let i = 0; i < 5; i++) await tools.echo(i); return 1');
      assert.equal(record.calls, 5);
    });
  });

  describe('errors', () => {
    it('reports an uncaught throw with its own name and message, and its position', async () => {
      const record = await run('const a = 1;\nconst b = 2;\nthrow new RangeError("at 3:7");');
      assert.equal(record.ok, false);
      assert.deepEqual(record.error, { name: 'RangeError', message: 'at 3:7', code: 'SCRIPT_ERROR', line: 3, column: 7, stack: 'at script.js:3:7' });
    });

    it('reports the position of a throw after an await, inside a nested function', async () => {
      const record = await run('await tools.echo(1);\nfunction f() {\n  return null.x;\n}\nf();');
      assert.equal(record.error?.name, 'TypeError');
      assert.equal(record.error?.line, 3);
      assert.equal(record.error?.column, 15);
    });

    it("gives the script's own stack: its frames only, its line numbers, innermost first", async () => {
      const record = await run('function f() {\n  null.x;\n}\nfunction g() { f(); }\n\nawait tools.echo(1);\ng();');
      assert.equal(record.error?.stack, 'at f (script.js:2:8)\nat g (script.js:4:16)\nat script.js:7:1');
      assert.equal(record.error?.line, 2);
    });

    it('reports a script left open at its last real line, naming what is not closed', async () => {
      const brace = await run('const a = 1;\nif (a) {\n  text("x");\n  text("y");\nconst b = 2;\ntext(b);\n');
      assert.equal(brace.error?.name, 'SyntaxError');
      assert.equal(brace.error?.message, 'unexpected end of script: `{` opened at line 2 is not closed');
      assert.equal(brace.error?.line, 6);
      const template = await run('text(1);\ntext(`abc ${1}\n');
      assert.equal(template.error?.message, 'unexpected end of script: the template literal opened at line 2 is not closed');
      assert.equal(template.error?.line, 2);
      const call = await run('text(1);\nfoo(bar,\n');
      assert.equal(call.error?.message, 'unexpected end of script: `(` opened at line 2 is not closed');
      assert.equal(call.error?.line, 2);
    });

    it('reports a syntax error with its line and column', async () => {
      const record = await run('const a = 1;\n\n\nlet = = 2;', { filename: 'job.js' });
      assert.equal(record.ok, false);
      assert.equal(record.error?.name, 'SyntaxError');
      assert.equal(record.error?.code, 'SCRIPT_ERROR');
      assert.equal(record.error?.line, 4);
      assert.equal(typeof record.error?.column, 'number');
      assert.doesNotMatch(record.error?.message ?? '', /job\.js/);
      assert.equal(record.calls, 0);
    });

    it('gives thrown non-Errors a sensible record', async () => {
      const cases: Array<[string, string]> = [
        ['throw 42', '42'],
        ['throw null', 'null'],
        ['throw undefined', 'undefined'],
        ['throw "plain"', 'plain'],
        ['throw { a: 1 }', '{"a":1}'],
      ];
      for (const [code, message] of cases) {
        const record = await run(code);
        assert.deepEqual(record.error, { name: 'Error', message, code: 'SCRIPT_ERROR' }, code);
      }
      const withCode = await run('throw { code: "MY_CODE", detail: 1 }');
      assert.deepEqual(withCode.error, { name: 'Error', message: '{"code":"MY_CODE","detail":1}', code: 'MY_CODE' });
    });

    it('keeps a string code carried by the thrown error', async () => {
      const failing: HostFunction = async () => {
        throw Object.assign(new Error('Unknown server "doc"'), { code: 'MCP_UNKNOWN_SERVER' });
      };
      const record = await run('\nawait tools.failing({});', { functions: { failing } });
      assert.deepEqual(record.error, {
        name: 'Error',
        message: 'Unknown server "doc"',
        code: 'MCP_UNKNOWN_SERVER',
        line: 2,
        column: 1,
        stack: 'at async script.js:2:1',
      });
    });

    it('reports a rejection left unhandled by the script', async () => {
      const record = await run('Promise.reject(new Error("nobody listens"));\nreturn 1;');
      assert.equal(record.ok, false);
      assert.equal(record.error?.message, 'nobody listens');
      assert.equal(record.error?.line, 1);
    });

    it('refuses code that closes the async wrapper early, before running any of it', async () => {
      const cases = ['}); "=not json"; (() => {', '}); "!null"; (() => {', '}); 42; (() => {', '})(); (async () => {', '}); while (true) {} (() => {'];
      for (const code of cases) {
        const record = await run(code, { timeoutMs: 5000 });
        assert.equal(record.ok, false, code);
        assert.equal(record.error?.code, 'SCRIPT_ERROR', code);
        assert.equal(record.error?.name, 'SyntaxError', code);
        assert.ok(record.durationMs < 1000, code);
      }
    });

    it('rejects only for bad options', async () => {
      await assert.rejects(runScript('return 1', { functions: { echo }, timeoutMs: -1 }), {
        name: 'TypeError',
        message: /^options\.timeoutMs must be .* got -1/,
      });
      await assert.rejects(runScript(42 as unknown as string, { functions: {} }), {
        name: 'TypeError',
        message: 'runScript code must be a string, got number',
      });
    });
  });

  describe('concurrency', () => {
    it('answers reach the call whatever the script adds to Object.prototype (a then() sees no answer, short or long)', async () => {
      const long: HostFunction = async (args) => 'y'.repeat(Number(args));
      const record = await run(
        `let seen = 0;
        Object.prototype.then = function (resolve) { seen++; resolve('hijacked'); };
        const out = [(await tools.long(10)).length, (await tools.long(5000)).length];
        delete Object.prototype.then;
        return [...out, seen];`,
        { functions: { long } },
      );
      assert.deepEqual(record.result, [10, 5000, 0], JSON.stringify(record.error));
    });

    it('runs parallel host calls at the same time', async () => {
      // Overlap, not a wall-clock bound: every call has started before the first one ends.
      let running = 0;
      let most = 0;
      const wait: HostFunction = async () => {
        most = Math.max(most, ++running);
        await sleep(200);
        running--;
        return 'done';
      };
      const record = await run('return await Promise.all(Array.from({ length: 8 }, () => tools.wait({})))', { functions: { wait } });
      assert.deepEqual(record.result, Array(8).fill('done'));
      assert.equal(record.calls, 8);
      assert.equal(most, 8);
    });

    it('reports progress of host functions with the function name', async () => {
      const events: unknown[] = [];
      const work: HostFunction = async (_args, { onProgress }) => {
        onProgress({ progress: 1, total: 2, message: 'half' });
        onProgress({ progress: 2 });
        return 'ok';
      };
      const record = await run('return await tools.work({})', { functions: { work }, onProgress: (p) => events.push(p) });
      assert.equal(record.result, 'ok');
      assert.deepEqual(events, [
        { fn: 'work', call: 1, progress: 1, total: 2, message: 'half' },
        { fn: 'work', call: 1, progress: 2 },
      ]);
    });

    it('keeps host memory bounded over 10,000 small calls', async function () {
      this.timeout(30_000);
      // Measured after a full GC (exposed at runtime for this test). Bound: 20,000 calls may grow
      // the host heap by at most 8 MB (a leak of 400 bytes per call fails); measured here: < 0.1 MB.
      // Generous because other suites in the same mocha process may leave background work.
      const gc = await exposeGc();
      const code = 'let n = 0;\nfor (let i = 0; i < 10000; i++) n += (await tools.echo({ i })).i;\nreturn n;';
      const first = await run(code);
      assert.equal(first.result, 49_995_000);
      assert.equal(first.calls, 10_000);
      gc();
      const before = process.memoryUsage().heapUsed;
      await run(code);
      await run(code);
      gc();
      const growth = process.memoryUsage().heapUsed - before;
      assert.ok(growth < 8 * 1024 * 1024, `host heap grew by ${(growth / 1024 / 1024).toFixed(2)} MB over 20,000 calls`);
    });
  });

  describe('limits', () => {
    it('stops a busy loop before any await (SCRIPT_TIMEOUT), and the next run works', async () => {
      const record = await run('text("started");\nwhile (true) {}', { timeoutMs: 300 });
      assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
      assert.match(record.error?.message ?? '', /300 ms/);
      assert.deepEqual(record.outputs, [{ type: 'text', text: 'started' }]);
      assert.ok(record.durationMs >= 290 && record.durationMs < 2000, `took ${record.durationMs} ms`);
      assert.equal((await run('return 1')).result, 1);
    });

    it('stops a busy loop after an await (SCRIPT_TIMEOUT), and the next run works', async () => {
      const record = await run('await tools.echo(1);\nwhile (true) {}', { timeoutMs: 300 });
      assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
      assert.equal(record.calls, 1);
      assert.equal((await run('return 2')).result, 2);
    });

    it('ends a promise that never settles at the deadline', async () => {
      const started = performance.now();
      const record = await run('await new Promise(() => {});', { timeoutMs: 300 });
      assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
      assert.ok(performance.now() - started < 2000);
    });

    it('counts time awaiting host functions against the timeout', async () => {
      const slow: HostFunction = async (_args, { signal }) => {
        await sleep(5000, undefined, { signal }).catch(() => {});
        return 'late';
      };
      const record = await run('return await tools.slow({})', { functions: { slow }, timeoutMs: 300 });
      assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
    });

    it('reports a memory bomb before any await as SCRIPT_MEMORY_LIMIT, and the next run works', async () => {
      const record = await run('const a = [];\nwhile (true) a.push("x".repeat(1000) + Math.random());', { memoryLimitMb: 32 });
      assert.equal(record.error?.code, 'SCRIPT_MEMORY_LIMIT');
      assert.match(record.error?.message ?? '', /32 MB/);
      assert.equal((await run('return 3')).result, 3);
    });

    it('reports a memory bomb after an await as SCRIPT_MEMORY_LIMIT', async () => {
      const record = await run('await tools.echo(1);\nconst a = [];\nwhile (true) a.push("x".repeat(1000) + Math.random());', {
        memoryLimitMb: 32,
      });
      assert.equal(record.error?.code, 'SCRIPT_MEMORY_LIMIT');
      assert.equal(record.calls, 1);
    });

    it('survives giant strings sent to text(): truncated or stopped, the host keeps going', async () => {
      const big = await run('text("x".repeat(50e6));\nreturn "after";');
      assert.equal(big.ok, true);
      assert.equal(big.result, 'after');
      assert.equal(big.outputs.length, 1);
      const only = big.outputs[0];
      assert.ok(only?.type === 'text' && only.text.endsWith('[output truncated: limit of 1048576 bytes reached]'));
      assert.ok(only.text.length < 1_048_576 + 100);
      // 50e6 characters cannot be flat in 16 MB: only a rope is that long, and cutting it would copy it all.
      const tight = await run('text("x".repeat(50e6));', { memoryLimitMb: 16 });
      assert.equal(tight.error?.name, 'RangeError', JSON.stringify(tight.error));
      assert.match(tight.error!.message, /^text\(\): a string of 50000000 characters is longer than this run can copy within its memory limit/);
      assert.equal((await run('return 4')).result, 4);
    });
  });

  describe('cancellation', () => {
    it('aborts the run through options.signal and aborts the host call in flight', async () => {
      let callSignal: AbortSignal | undefined;
      const hang: HostFunction = async (_args, { signal }) => {
        callSignal = signal;
        await sleep(10_000, undefined, { signal }).catch(() => {});
        return 'never seen';
      };
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const record = await run('text("before");\nawait tools.hang({});', { functions: { hang }, signal: controller.signal });
      assert.equal(record.error?.code, 'SCRIPT_ABORTED');
      assert.deepEqual(record.outputs, [{ type: 'text', text: 'before' }]);
      assert.equal(callSignal?.aborted, true);
      assert.ok(isBerryError(callSignal?.reason) && callSignal.reason.code === 'SCRIPT_ABORTED');
    });

    it('does not start when the signal is already aborted', async () => {
      const record = await run('return 1', { signal: AbortSignal.abort() });
      assert.equal(record.error?.code, 'SCRIPT_ABORTED');
      assert.equal(record.calls, 0);
    });

    it('aborts a call still running when the script returns', async () => {
      let callSignal: AbortSignal | undefined;
      const hang: HostFunction = async (_args, { signal }) => {
        callSignal = signal;
        await sleep(10_000, undefined, { signal }).catch(() => {});
      };
      // The echo round trip makes sure the hanging call reached the host before the script returns.
      const record = await run('tools.hang({});\nawait tools.echo(1);\nreturn "done";', { functions: { hang, echo } });
      assert.equal(record.result, 'done');
      assert.equal(record.calls, 2);
      assert.equal(callSignal?.aborted, true);
      assert.ok(isBerryError(callSignal?.reason) && callSignal.reason.code === 'SCRIPT_ABORTED');
    });

    it('aborts the call in flight with SCRIPT_TIMEOUT when the run times out', async () => {
      let callSignal: AbortSignal | undefined;
      const hang: HostFunction = async (_args, { signal }) => {
        callSignal = signal;
        await sleep(10_000, undefined, { signal }).catch(() => {});
      };
      const record = await run('await tools.hang({});', { functions: { hang }, timeoutMs: 200 });
      assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
      assert.ok(isBerryError(callSignal?.reason) && callSignal.reason.code === 'SCRIPT_TIMEOUT');
    });
  });

  describe('teardown', () => {
    /** A warm pool that shows the isolate each run takes from it. */
    class WatchedPool extends IsolatePool {
      readonly taken: IsolatedVm.Isolate[] = [];
      override take(...args: Parameters<IsolatePool['take']>): ReturnType<IsolatePool['take']> {
        const sandbox = super.take(...args);
        if (sandbox !== undefined) this.taken.push(sandbox.isolate);
        return sandbox;
      }
    }

    /** `code` run from a warm sandbox: whether its isolate was disposed when the record came, and one turn later. */
    async function disposals(code: string, options: Partial<RunScriptOptions> = {}): Promise<{ record: RunRecord; atRecord: boolean; after: boolean }> {
      const pool = new WatchedPool(1);
      try {
        await runScript('return 0', { functions: { echo }, timeoutMs: 10_000, ...options }, pool);
        while (pool.idle === 0) await sleep(5);
        const record = await runScript(code, { functions: { echo }, timeoutMs: 10_000, ...options }, pool);
        const isolate = pool.taken[0]!;
        const atRecord = isolate.isDisposed;
        await new Promise((resolve) => setImmediate(resolve));
        return { record, atRecord, after: isolate.isDisposed };
      } finally {
        pool.close();
      }
    }

    it("disposes a settled run's isolate right after its record, off the run's path", async () => {
      const { record, atRecord, after } = await disposals('return 1');
      assert.equal(record.result, 1);
      assert.deepEqual([atRecord, after], [false, true]);
    });

    it("disposes a stopped run's isolate before its record: a timed-out loop is ended at once", async () => {
      const { record, atRecord } = await disposals('await tools.echo(1); for (;;) {}', { timeoutMs: 300 });
      assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
      assert.equal(atRecord, true);
    });

    it('a callback the script left behind, looping once its run has ended, is stopped with the isolate', async () => {
      const hang: HostFunction = async (_args, { signal }) => {
        await sleep(10_000, undefined, { signal }).catch(() => {});
      };
      // The run's end aborts the call; its answer wakes the finally, which would loop forever.
      const record = await run('tools.hang({}).finally(() => { for (;;) {} });\nawait tools.echo(1);\nreturn "done";', { functions: { hang, echo } });
      assert.equal(record.result, 'done');
      const next = await run('return 2', { timeoutMs: 2_000 });
      assert.equal(next.result, 2);
    });
  });
});

/** V8 flags are process-wide (isolates would get a `gc` global too): switch it back at once. */
async function exposeGc(): Promise<() => void> {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
