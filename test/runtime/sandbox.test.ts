import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { runScript, type HostFunction, type RunRecord, type RunScriptOptions } from '../../src/runtime/index.js';

const echo: HostFunction = async (args) => args;
const mcp_call: HostFunction = async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] });
const run = (code: string, options: Partial<RunScriptOptions> = {}): Promise<RunRecord> =>
  runScript(code, { functions: { echo, mcp_call }, timeoutMs: 10_000, ...options });

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * V8's own globals in a bare isolated-vm context (Node 20, V8 11.3), nothing of Node's, less the two
 * the sandbox removes: Intl and WebAssembly (memory outside the heap limit).
 */
const V8_GLOBALS = [
  'Object',
  'Function',
  'Array',
  'Number',
  'parseFloat',
  'parseInt',
  'Infinity',
  'NaN',
  'undefined',
  'Boolean',
  'String',
  'Symbol',
  'Date',
  'Promise',
  'RegExp',
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'globalThis',
  'JSON',
  'Math',
  'ArrayBuffer',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'Uint8ClampedArray',
  'BigUint64Array',
  'BigInt64Array',
  'DataView',
  'Map',
  'BigInt',
  'Set',
  'WeakMap',
  'WeakSet',
  'Proxy',
  'Reflect',
  'FinalizationRegistry',
  'WeakRef',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
  'eval',
  'isFinite',
  'isNaN',
  'console',
  'SharedArrayBuffer',
  'Atomics',
];
/** Standard ECMAScript globals that later V8s add (Node 22: Iterator; Node 24: the rest; Node 26: Temporal). */
const LATER_STANDARD_GLOBALS = new Set(['Iterator', 'Float16Array', 'DisposableStack', 'AsyncDisposableStack', 'SuppressedError', 'Temporal']);

describe('sandbox globals', () => {
  it('text(): strings as they are, other values as pretty JSON, undefined as "undefined"', async () => {
    const record = await run('text("plain");\ntext({ a: [1, 2] });\ntext(undefined);\ntext(null);\ntext(7);');
    assert.deepEqual(record.outputs, [
      { type: 'text', text: 'plain' },
      { type: 'text', text: '{\n  "a": [\n    1,\n    2\n  ]\n}' },
      { type: 'text', text: 'undefined' },
      { type: 'text', text: 'null' },
      { type: 'text', text: '7' },
    ]);
  });

  it('text() of a value JSON cannot hold throws a TypeError the script can catch', async () => {
    const record = await run('const a = {}; a.a = a;\ntry { text(a); } catch (e) { return e.name + ": " + e.message; }');
    assert.match(String(record.result), /^TypeError: text\(\): the value cannot be converted to JSON/);
  });

  it('console methods are captured as logs, formatted like Node: strings as is, others JSON, joined by a space', async () => {
    const record = await run(
      'console.log("a", 1, { b: [2] }, null, undefined);\nconsole.info("i");\nconsole.warn("w");\nconsole.error(new TypeError("bad"));\nconsole.debug(10n);',
    );
    assert.equal(record.outputs.length, 0);
    assert.deepEqual(record.logs.slice(0, 3), [
      { level: 'log', text: 'a 1 {"b":[2]} null undefined' },
      { level: 'info', text: 'i' },
      { level: 'warn', text: 'w' },
    ]);
    assert.equal(record.logs[3]?.level, 'error');
    assert.match(record.logs[3]?.text ?? '', /^TypeError: bad\n    at script\.js:4:15/);
    assert.deepEqual(record.logs[4], { level: 'debug', text: '10' });
  });

  it('image() takes an MCP image block, its type optional; a bad block throws a TypeError inside the script', async () => {
    const record = await run(`
      image({ type: 'image', data: '${PNG}', mimeType: 'image/png', annotations: { audience: ['user'] } });
      image({ data: '${PNG}', mimeType: 'image/gif' });
      const bad = [
        { type: 'img', data: '${PNG}', mimeType: 'image/png' },
        { type: null, data: '${PNG}', mimeType: 'image/png' },
        null, 'x', { type: 'text', text: 'no' },
        { type: 'image', data: 'not base64!', mimeType: 'image/png' },
        { type: 'image', data: 'abc', mimeType: 'image/png' },
        { type: 'image', data: '', mimeType: 'image/png' },
        { type: 'image', data: '${PNG}', mimeType: 'text/plain' },
        { type: 'image', data: '${PNG}' },
      ];
      const caught = [];
      for (const block of bad) {
        try { image(block); caught.push('accepted'); } catch (e) { caught.push(e instanceof TypeError ? 'TypeError' : String(e)); }
      }
      return caught;`);
    assert.deepEqual(record.result, Array(10).fill('TypeError'));
    assert.deepEqual(record.outputs, [
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'image', data: PNG, mimeType: 'image/gif' },
    ]);
  });

  it('shares one output budget between texts, logs and images, and says when it is spent', async () => {
    const record = await run(
      `text("a".repeat(60));\nconsole.log("b".repeat(60));\ntext("c");\nimage({ type: "image", data: "${PNG}", mimeType: "image/png" });\nconsole.log("d");\nreturn "done";`,
      { outputLimitBytes: 100 + 2 * 64 },
    );
    assert.equal(record.result, 'done');
    assert.deepEqual(record.outputs, [{ type: 'text', text: 'a'.repeat(60) }]);
    assert.deepEqual(record.logs, [{ level: 'log', text: `${'b'.repeat(40)}\n[output truncated: limit of 228 bytes reached]` }]);
  });

  it('an image that does not fit is replaced by the truncation notice', async () => {
    const record = await run(`text("x");\nimage({ type: "image", data: "${PNG}", mimeType: "image/png" });\ntext("y");`, {
      outputLimitBytes: 150,
    });
    assert.deepEqual(record.outputs, [
      { type: 'text', text: 'x' },
      { type: 'text', text: '[output truncated: limit of 150 bytes reached]' },
    ]);
  });

  it('exposes tools.<name> for each host function, frozen', async () => {
    const record = await run(`
      'use strict';
      const names = Object.keys(tools);
      let assigned = 'no';
      try { tools.echo = null; assigned = 'yes'; } catch {}
      try { tools.echo.extra = 1; assigned = 'yes'; } catch {}
      try { delete globalThis.tools; } catch {}
      return { names, assigned, frozen: Object.isFrozen(tools) && Object.isFrozen(tools.echo), still: typeof tools.echo,
        name: tools.echo.name, reply: await tools.echo({ a: 1 }) };`);
    assert.deepEqual(record.result, { names: ['echo', 'mcp_call'], assigned: 'no', frozen: true, still: 'function', name: 'echo', reply: { a: 1 } });
  });

  it('arguments that are not JSON-serialisable throw a TypeError in the script, without calling the host', async () => {
    const record = await run(`
      const out = [];
      const circular = {}; circular.self = circular;
      for (const args of [circular, 10n, () => 1, Symbol('s')]) {
        try { await tools.echo(args); out.push('called'); } catch (e) { out.push(e.name); }
      }
      out.push(await tools.echo());
      return out;`);
    assert.deepEqual(record.result, ['TypeError', 'TypeError', 'TypeError', 'TypeError', null]);
    assert.equal(record.calls, 1);
  });
});

describe('sandbox isolation', () => {
  it('empties globals that V8 flags of the host add (--expose-gc)', async () => {
    // .mocharc.json starts Node with --expose-gc; another test may have turned it off meanwhile.
    const { setFlagsFromString } = await import('node:v8');
    setFlagsFromString('--expose-gc');
    const record = await run('globalThis.gc = () => 1; return [typeof gc, Object.getOwnPropertyDescriptor(globalThis, "gc")?.writable];');
    assert.deepEqual(record.result, ['undefined', false]);
  });

  it('refuses a script that closes its wrapper function early', async () => {
    const record = await run('}); globalThis.escaped = 1; (async () => {');
    assert.equal(record.ok, false);
    assert.equal(record.error?.name, 'SyntaxError');
    assert.match(record.error?.message ?? '', /closes its own function early/);
    const next = await run('return typeof globalThis.escaped;');
    assert.equal(next.result, 'undefined');
  });

  it('has exactly the allowed globals', async () => {
    const record = await run(
      'return Object.getOwnPropertyNames(globalThis).filter((n) => globalThis[n] !== undefined || n === "undefined").concat(Object.getOwnPropertySymbols(globalThis).map(String));',
    );
    const names = (record.result as string[]).filter((name) => !LATER_STANDARD_GLOBALS.has(name));
    assert.deepEqual(names.sort(), [...V8_GLOBALS, 'tools', 'text', 'image'].sort());
  });

  it('Function constructors reached from sandbox objects give nothing of the host', async () => {
    const record = await run(`
      const tries = {
        viaThis: () => this.constructor.constructor('return process')(),
        viaText: () => text.constructor('return typeof process + typeof require + typeof fetch + typeof module')(),
        viaTools: async () => {
          const g = await tools.mcp_call.constructor('return this')();
          return g === globalThis && typeof g.process === 'undefined' && typeof g.require === 'undefined';
        },
      };
      const out = {};
      for (const [name, f] of Object.entries(tries)) {
        try { out[name] = await f(); } catch (e) { out[name] = 'threw ' + e.name; }
      }
      return out;`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const out = record.result as Record<string, unknown>;
    assert.ok(out['viaThis'] === 'threw ReferenceError' || out['viaThis'] === undefined, String(out['viaThis']));
    assert.equal(out['viaText'], 'undefinedundefinedundefinedundefined');
    assert.equal(out['viaTools'], true);
  });

  it('no isolated-vm object (Reference, Callback, ExternalCopy) is reachable from globalThis', async () => {
    // Walks every object reachable through own properties (values, getters, setters) and prototypes.
    const record = await run(`
      const seen = new Set();
      const queue = [globalThis];
      const found = [];
      while (queue.length > 0) {
        const o = queue.pop();
        if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) continue;
        seen.add(o);
        const keys = Reflect.ownKeys(o);
        for (const k of ['applySync', 'applyIgnored', 'derefInto', 'copySync', 'copyInto', 'setSync']) {
          if (keys.includes(k)) found.push(String(k));
        }
        queue.push(Object.getPrototypeOf(o));
        for (const k of keys) {
          const d = Object.getOwnPropertyDescriptor(o, k);
          if (d) queue.push(d.value, d.get, d.set);
        }
      }
      return { objects: seen.size, found };`);
    const { objects, found } = record.result as { objects: number; found: string[] };
    assert.deepEqual(found, []);
    assert.ok(objects > 500, `walked only ${objects} objects`);
  });

  it('stack-trace callsites hand out no bootstrap function or receiver', async () => {
    const record = await run(
      `
      const leaks = [];
      Error.prepareStackTrace = (error, frames) => {
        for (const f of frames) {
          if (f.getFileName() !== 'script.js' && (f.getFunction() !== undefined || (f.getThis() !== undefined && f.getThis() !== globalThis))) {
            leaks.push(f.getFileName() + ':' + f.getFunctionName());
          }
        }
        return 'prepared';
      };
      const a = {}; a.a = a;
      try { text(a); } catch (e) { e.stack; }
      try { image(null); } catch (e) { e.stack; }
      try { await tools.echo(a); } catch (e) { e.stack; }
      return leaks;`,
      {
        functions: {
          echo: async () => {
            throw new Error('host');
          },
        },
      },
    );
    assert.deepEqual(record.result, []);
  });

  it('prototype pollution through the return value does not reach the host', async () => {
    const record = await run('Object.prototype.polluted = "inside";\nreturn JSON.parse(\'{"__proto__":{"polluted":1},"a":{"__proto__":{"polluted":2}}}\');');
    assert.equal(record.ok, true);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
    assert.equal(Object.getPrototypeOf(record.result), Object.prototype);
    assert.deepEqual(Object.keys(record.result as object), ['__proto__', 'a']);
  });

  it('prototype pollution through host function arguments does not reach the host', async () => {
    let received: unknown;
    const take: HostFunction = async (args) => {
      received = args;
      return Object.keys(args as object);
    };
    const record = await run('return await tools.take(JSON.parse(\'{"__proto__":{"polluted":1}}\'));', { functions: { take } });
    assert.deepEqual(record.result, ['__proto__']);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
    assert.equal(Object.getPrototypeOf(received), Object.prototype);
  });

  it('host errors arrive as plain Errors with name, message and code, and no host stack or path', async () => {
    const fail: HostFunction = async () => {
      throw Object.assign(new Error('boom /home/secret/path.js'), { code: 'MCP_TIMEOUT' });
    };
    const record = await run(
      'try {\n  await tools.fail({});\n} catch (e) {\n' +
        '  return { isError: e instanceof Error, proto: Object.getPrototypeOf(e) === Error.prototype,\n' +
        '    name: e.name, message: e.message, code: e.code, stack: e.stack, keys: Object.keys(e) };\n}',
      { functions: { fail } },
    );
    const caught = record.result as Record<string, unknown>;
    assert.deepEqual(
      { ...caught, stack: undefined },
      {
        isError: true,
        proto: true,
        name: 'Error',
        message: 'boom /home/secret/path.js',
        code: 'MCP_TIMEOUT',
        stack: undefined,
        keys: ['code'],
      },
    );
    const stack = String(caught['stack']);
    const frames = stack.slice(stack.indexOf('\n'));
    assert.match(frames, /^\n {4}at async script\.js:2:3/);
    assert.doesNotMatch(frames, /[/\\]|node:|file:/, 'no host file path in the frames');
    assert.ok(!stack.includes(import.meta.url) && !stack.includes(process.cwd()));
  });

  it('keeps the host error name (e.g. a BerryError subclass)', async () => {
    class CallTimeoutError extends Error {
      override name = 'CallTimeoutError';
      code = 'MCP_TIMEOUT';
    }
    const fail: HostFunction = async () => {
      throw new CallTimeoutError('Tool "search" on "docs" timed out after 60 s');
    };
    const record = await run('try { await tools.fail({}); } catch (e) { return [e.name, e.code, e.stack.split("\\n")[0]]; }', { functions: { fail } });
    assert.deepEqual(record.result, ['CallTimeoutError', 'MCP_TIMEOUT', 'CallTimeoutError: Tool "search" on "docs" timed out after 60 s']);
  });

  it('a host function returning something JSON cannot hold fails that call only', async () => {
    const odd: HostFunction = async () => ({ n: 1n });
    const record = await run('try { await tools.odd({}); } catch (e) { return e.name + ": " + e.message; }', { functions: { odd } });
    assert.match(String(record.result), /^TypeError: tools\.odd\(\) returned a value that cannot be converted to JSON/);
  });
});

describe('sandbox resource classes', () => {
  it('has no Intl and no WebAssembly; locale methods still work', async () => {
    const record = await run('return [typeof Intl, typeof WebAssembly, (1234.5).toLocaleString("en-US"), "a".localeCompare("b")]');
    assert.deepEqual(record.result, ['undefined', 'undefined', '1,234.5', -1]);
  });

  it('refuses resizable and growable buffers, however the constructor is reached', async () => {
    const record = await run(`
      const tries = [
        () => new ArrayBuffer(1, { maxByteLength: 2 ** 32 }),
        () => new SharedArrayBuffer(1, { maxByteLength: 2 ** 32 }),
        () => new (new Uint8Array(1).buffer.constructor)(1, { maxByteLength: 2 ** 32 }),
        () => Reflect.construct(ArrayBuffer, [1, { maxByteLength: 2 ** 32 }]),
        () => { class Big extends ArrayBuffer {} return new Big(1, { maxByteLength: 2 ** 32 }); },
        () => { let n = 0; return new ArrayBuffer(1, { get maxByteLength() { return n++ ? 2 ** 32 : undefined; } }); },
      ];
      return tries.map((t) => { try { const b = t(); return 'made resizable=' + b.resizable; } catch (e) { return e.name; } });`);
    assert.deepEqual(record.result, ['RangeError', 'RangeError', 'RangeError', 'RangeError', 'RangeError', 'made resizable=false']);
  });

  it('plain buffers still work, and an uncaught allocation failure is the memory limit', async () => {
    const ok = await run('const b = new ArrayBuffer(8); return [b.byteLength, b instanceof ArrayBuffer, new Uint8Array(4).buffer instanceof ArrayBuffer];');
    assert.deepEqual(ok.result, [8, true, true]);
    const bomb = await run('const a = []; for (;;) a.push(new Uint8Array(1 << 20));', { memoryLimitMb: 16 });
    assert.equal(bomb.error?.code, 'SCRIPT_MEMORY_LIMIT');
  });

  it('Array.prototype.fill refuses more elements than the memory limit holds, at once; smaller fills behave as native', async () => {
    const started = performance.now();
    const record = await run(`
      const tries = [
        () => new Array(2 ** 27).fill(0),
        () => Array.prototype.fill.call({ length: 2 ** 40 }, 1),
        () => { const a = [1, 2, 3]; return a.fill(9, { valueOf() { a.length = 2 ** 27; return 0; } }); },
      ];
      const refused = tries.map((t) => { try { t(); return 'filled'; } catch (e) { return e.name; } });
      return [refused, [1, 2, 3, 4, 5].fill(0, 1, -1), [1, 2, 3].fill(7, -2), Array.prototype.fill.call({ length: 2 }, 'x'), new Array(1e6).fill(1).length];`);
    assert.deepEqual(record.result, [['RangeError', 'RangeError', 'RangeError'], [1, 0, 0, 0, 5], [1, 7, 7], { 0: 'x', 1: 'x', length: 2 }, 1e6]);
    assert.ok(performance.now() - started < 5_000, 'refused before any work');
  });

  it('every output entry costs against the budget: an empty-output flood ends with a small record', async () => {
    const record = await run('for (let i = 0; i < 1e6; i++) { text(""); console.log(); } return "done";');
    assert.equal(record.result, 'done');
    const entries = record.outputs.length + record.logs.length;
    assert.ok(entries <= 10_000, `${entries} entries`);
    assert.ok(JSON.stringify(record).length < 400_000, `${JSON.stringify(record).length} bytes`);
    assert.match(JSON.stringify(record), /output truncated/);
  });

  it("caps one call's arguments at maxArgumentBytes before the host function runs", async () => {
    let called = 0;
    const count: HostFunction = async () => ++called;
    const record = await runScript(
      `const big = "x".repeat(1e6);
      const out = [];
      try { await tools.count(Array(50).fill(big)); } catch (e) { out.push(e.code, e.message); }
      try { await tools.count("é".repeat(600000)); } catch (e) { out.push(e.code, e.message); }
      out.push(await tools.count("x".repeat(1000)));
      return out;`,
      { functions: { count }, maxArgumentBytes: 1_000_000, timeoutMs: 10_000 },
    );
    const [code1, message1, code2, message2, calls] = record.result as [string, string, string, string, number];
    assert.equal(code1, 'MCP_INVALID_ARGUMENT');
    // Stopped while counting, long before the 50 MB of JSON were built.
    assert.match(message1, /at least 1\d{6} characters as JSON, more than the limit of 1000000 bytes \(maxArgumentBytes\)/);
    // 600,000 characters, 1,200,002 bytes: caught by the host side of the crossing.
    assert.equal(code2, 'MCP_INVALID_ARGUMENT');
    assert.match(message2, /1200002 bytes as JSON/);
    assert.equal(calls, 1);
    assert.equal(called, 1);
  });
});

describe('sandbox host-call flood', () => {
  it('a loop starting calls without awaiting them keeps at most maxConcurrentCalls on the host, and the run ends', async function () {
    this.timeout(20_000);
    let inFlight = 0;
    let most = 0;
    const hang: HostFunction = async (_args, context) => {
      most = Math.max(most, ++inFlight);
      // 64 waiters on the run's one signal, on purpose.
      setMaxListeners(0, context.signal);
      try {
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
      } finally {
        inFlight--;
      }
    };
    const started = performance.now();
    const record = await runScript('for (let i = 0; ; i++) tools.hang({ i });', { functions: { hang }, timeoutMs: 3000, memoryLimitMb: 32 });
    assert.equal(record.ok, false);
    assert.ok(record.error?.code === 'SCRIPT_MEMORY_LIMIT' || record.error?.code === 'SCRIPT_TIMEOUT', record.error?.code);
    assert.ok(performance.now() - started < 6000, `ended after ${Math.round(performance.now() - started)} ms`);
    assert.equal(most, 64);
    assert.equal(record.calls, 64);
    assert.equal(inFlight, 0);
  });

  it('queued calls run as earlier ones finish, in order, and all complete', async () => {
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    const slow: HostFunction = async (args) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      order.push((args as { i: number }).i);
      return (args as { i: number }).i;
    };
    const record = await runScript('return (await Promise.all(Array.from({ length: 40 }, (_, i) => tools.slow({ i })))).length;', {
      functions: { slow },
      maxConcurrentCalls: 8,
      timeoutMs: 10_000,
    });
    assert.equal(record.result, 40);
    assert.equal(most, 8);
    assert.equal(order.length, 40);
  });
});

describe('sandbox argument depth', () => {
  it('arguments nested deeper than 256 levels fail that call with MCP_INVALID_ARGUMENT, host function not called', async () => {
    let called = 0;
    const count: HostFunction = async () => ++called;
    const record = await runScript(
      `let deep = 1; for (let i = 0; i < 1000; i++) deep = [deep];
      try { await tools.count(deep); } catch (e) { return [e.code, e.message, await tools.count([[[1]]])]; }`,
      { functions: { count }, timeoutMs: 10_000 },
    );
    assert.deepEqual(record.result, [
      'MCP_INVALID_ARGUMENT',
      'tools.count(): the arguments nest more than 256 levels of arrays and objects. Send a flatter value.',
      1,
    ]);
    assert.equal(called, 1);
  });
});
