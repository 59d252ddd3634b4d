// Attacks on the gate for what servers say (issue 31, section 3): a hostile server (the
// hostile-text fixture, which reads another entry's secret from the environment it inherits)
// tries to get that secret, or text of unbounded size or shape, past the host to a script's
// onProgress, a serve client, a log, a saved file, or another client's model.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/host.js';
import type { LogEvent } from '../../src/bindings/log.js';
import type { ProgressEvent } from '../../src/bindings/contract.js';
import type { RunProgress } from '../../src/runtime/index.js';
import { run, serveHttp, serveStdio, texts, type HttpServe, type StdioServe } from '../support/berry-serve.js';
import { hostileTextPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

/** Another entry's secret (the `api` entry's header): the hostile server finds it in its env. */
const SECRET = 'Gq7-zX9v-K2mW-p4Lc-R8tY';
const VAR = 'BERRY_ADV_API_TOKEN';
const ENV = { [VAR]: SECRET };

const servers = {
  // 2025-11-25 over stdio: calls go beside the SDK (direct-requests.ts), progress unchecked by it.
  legacy: { command: process.execPath, args: [hostileTextPath], protocol: '2025-11-25' },
  // 2026-07-28: input_required rounds, the SDK's client.
  modern: { command: process.execPath, args: [hostileTextPath] },
  // Never started: its header makes the variable a secret of this config.
  api: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer \${${VAR}}` } },
};

/** True when any 6 characters in a row of the secret show in `text`, even percent- or JSON-encoded, in any case. */
function leaks(text: string): boolean {
  let plain = text.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  plain = plain.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).toLowerCase();
  const secret = SECRET.toLowerCase();
  for (let i = 0; i + 6 <= secret.length; i++) if (plain.includes(secret.slice(i, i + 6))) return true;
  return false;
}

const call = (server: string, tool: string, args: unknown): string =>
  `return await tools.mcp_call({ server: ${JSON.stringify(server)}, tool: ${JSON.stringify(tool)}, arguments: ${JSON.stringify(args)} });`;

/** The messages a secret is hidden in: plain, every byte percent-encoded, and split across two messages. */
const SECRET_NOTES = [
  { progress: 1, message: `key {{env:${VAR}}}` },
  { progress: 2, message: `{{pct:${VAR}}}` },
  { progress: 3, message: `first half {{head:${VAR}}}` },
  { progress: 4, message: `{{tail:${VAR}}} second half` },
];

describe('adversarial: what a server says is masked, bounded and checked before it leaves the host', function () {
  this.timeout(120_000);
  const saved = process.env[VAR];
  before(() => {
    process.env[VAR] = SECRET;
  });
  after(() => {
    if (saved === undefined) delete process.env[VAR];
    else process.env[VAR] = saved;
  });

  describe('through the library host', () => {
    const logs: LogEvent[] = [];
    const asked: unknown[] = [];
    let hold: Promise<void> = Promise.resolve();
    const t = useTestHost(servers, {
      prefix: 'berry-adv-text-',
      options: (dir) => ({
        savedCatalogs: { dir: join(dir, 'catalogs') },
        onLog: (event) => logs.push(event),
        onElicitation: async (params) => {
          asked.push(params);
          await hold;
          return { action: 'accept', content: { ok: true } };
        },
      }),
    });
    beforeEach(() => {
      logs.length = 0;
      asked.length = 0;
      hold = Promise.resolve();
    });

    for (const server of ['legacy', 'modern']) {
      it(`${server}: another entry's secret in progress messages (plain, percent-encoded, split in two) never reaches onProgress`, async () => {
        const events: RunProgress[] = [];
        const record = await t.host.run(call(server, 'progress', { notes: SECRET_NOTES }), { onProgress: (p) => events.push(p) });
        assert.equal(record.ok, true, JSON.stringify(record));
        // The SDK's client (2026) may drop a last notification that comes in one read with the answer.
        assert.ok(server === 'legacy' ? events.length === 4 : events.length >= 3, JSON.stringify(events));
        assert.ok(!leaks(JSON.stringify(events)), JSON.stringify(events));
        assert.equal(events[0]!.message, 'key ***');
      });

      it(`${server}: malformed progress is dropped or normalized, never handed on as it came`, async () => {
        const events: ProgressEvent[] = [];
        const notes = [{ progress: 'lots' }, { progress: -1 }, { progress: 1, total: -5 }, { progress: 2, total: 'all', message: 7 }];
        const raw = ['{"progressToken":$TOKEN,"progress":1e999}', '{"progressToken":$TOKEN,"progress":3,"total":1e999,"message":"ok"}'];
        const result = await t.host.call({ server, tool: 'progress', arguments: { notes, raw } }, { onProgress: (p) => events.push(p) });
        assert.deepEqual(texts(result as never), ['sent']);
        for (const event of events) {
          assert.ok(Number.isFinite(event.progress) && event.progress >= 0, JSON.stringify(event));
          if ('total' in event) assert.ok(Number.isFinite(event.total) && event.total! >= 0, JSON.stringify(event));
          if ('message' in event) assert.equal(typeof event.message, 'string');
        }
        const normalized = [
          [1, undefined, undefined],
          [2, undefined, undefined],
          [3, undefined, 'ok'],
        ];
        const got = events.map((e) => [e.progress, e.total, e.message]);
        // The 2026 client's SDK already drops a notification with any bad field; the direct path leaves it to the gate.
        if (server === 'legacy') assert.deepEqual(got, normalized);
        else
          for (const event of got)
            assert.ok(
              normalized.some((n) => JSON.stringify(n) === JSON.stringify(event)),
              JSON.stringify(got),
            );
      });

      it(`${server}: a 2,000,000-character progress message is cut to its cap`, async () => {
        const events: ProgressEvent[] = [];
        const notes = [
          { progress: 1, message: `{{x:2000000}} {{env:${VAR}}}` },
          { progress: 2, message: 'end' },
        ];
        await t.host.call({ server, tool: 'progress', arguments: { notes } }, { onProgress: (p) => events.push(p) });
        assert.equal(events[0]?.progress, 1, JSON.stringify(events).slice(0, 200));
        assert.ok(events[0]!.message!.length <= 1100, `${events[0]!.message!.length} characters`);
      });

      it(`${server}: an elicitation's message and form (titles, descriptions, options, defaults) reach the handler masked`, async () => {
        const requestedSchema = {
          type: 'object',
          properties: {
            [`{{env:${VAR}}}`]: { type: 'string' },
            key: { type: 'string', title: `Key {{env:${VAR}}}`, description: `paste {{pct:${VAR}}}`, default: `{{env:${VAR}}}` },
            pick: {
              type: 'string',
              oneOf: [
                { const: 'a', title: `{{env:${VAR}}}` },
                { const: 'b', title: 'b' },
              ],
            },
          },
        };
        const result = await t.host.call({ server, tool: 'ask', arguments: { message: `Confirm the deploy key {{env:${VAR}}}`, requestedSchema } });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal(asked.length, 1);
        assert.ok(!leaks(JSON.stringify(asked)), JSON.stringify(asked));
        assert.match((asked[0] as { message: string }).message, /^Confirm the deploy key \*\*\*$/);
      });

      it(`${server}: a form past its caps is declined unshown, and a long message is cut`, async () => {
        const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, { type: 'string' }])) };
        await t.host.call({ server, tool: 'ask', arguments: { requestedSchema: wide } });
        const options = { type: 'object', properties: { pick: { type: 'string', enum: Array.from({ length: 5000 }, (_, i) => `o${i}`) } } };
        await t.host.call({ server, tool: 'ask', arguments: { requestedSchema: options } });
        assert.equal(asked.length, 0, 'a form of 40 fields or 5,000 options was shown');
        await t.host.call({ server, tool: 'ask', arguments: { message: '{{x:500000}}' } });
        assert.equal(asked.length, 1);
        assert.ok((asked[0] as { message: string }).message.length <= 4100);
      });
    }

    it('modern: 2,400 questions in one input_required round fail the call, none asked', async () => {
      await assert.rejects(t.host.call({ server: 'modern', tool: 'ask', arguments: { count: 2400 } }), {
        code: 'MCP_INPUT_UNSUPPORTED',
        message: /2,400 questions/,
      });
      assert.equal(asked.length, 0);
    });

    it('legacy: 2,400 elicitation/create at once reach the user at most 16 at a time', async () => {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      const answer = t.host.call({ server: 'legacy', tool: 'ask', arguments: { count: 2400 } });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const open = asked.length;
      release();
      await answer;
      assert.ok(open <= 16, `${open} questions open at once`);
      // The declines are said once per burst, not once each: the server cannot flood the log either.
      assert.ok(logs.filter((e) => e.kind === 'elicitation').length <= 3, `${logs.filter((e) => e.kind === 'elicitation').length} log lines`);
    });

    it('log lines and stderr: masked and cut per line', async () => {
      await t.host.call({ server: 'legacy', tool: 'say', arguments: { log: `{{x:1000000}} {{env:${VAR}}}`, stderr: `token {{env:${VAR}}} {{x:100000}}\n` } });
      await waitFor(() => logs.some((e) => e.kind === 'stderr' && e.message.includes('token')), 10_000, 'the stderr line');
      const said = logs.filter((e) => e.kind === 'server-log' || e.kind === 'stderr');
      assert.ok(said.some((e) => e.kind === 'server-log'));
      for (const event of said) {
        assert.ok(!leaks(event.message), event.message.slice(0, 200));
        for (const line of event.message.split('\n')) assert.ok(line.length <= 8300, `${event.kind} line of ${line.length} characters`);
      }
    });

    it('a secret as a result key: masked for the script, and never written to the saved observed types', async () => {
      for (let i = 0; i < 3; i++) {
        const result = await t.host.call({ server: 'legacy', tool: 'keys', arguments: { keys: [`{{env:${VAR}}}`, 'ok'] } });
        assert.ok(!leaks(JSON.stringify(result)));
      }
      const described = await t.host.describe({ server: 'legacy', tool: 'keys' });
      assert.ok(!leaks(JSON.stringify(described)), JSON.stringify(described));
      // A second host on the same files flushes what it learned on close: read every file there.
      const second = createHost({ cwd: t.dir, configPath: t.configPath, savedCatalogs: { dir: join(t.dir, 'catalogs') } });
      await second.call({ server: 'legacy', tool: 'keys', arguments: { keys: [`{{env:${VAR}}}`, 'ok'] } });
      await second.describe({ server: 'legacy' });
      await second.close();
      const files = filesUnder(join(t.dir, 'catalogs'));
      assert.ok(
        files.some((f) => f.endsWith('.observed.json')),
        files.join('\n'),
      );
      for (const file of files) assert.ok(!leaks(readFileSync(file, 'utf8')), `${file} holds the secret`);
    });
  });

  describe('through serve', () => {
    let tmp: ReturnType<typeof tempDir>;
    let stdio: StdioServe;
    let http: HttpServe;
    const asked: unknown[] = [];

    before(async () => {
      tmp = tempDir('berry-adv-serve-text-');
      writeConfig(tmp.dir, servers);
      stdio = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir, env: ENV, capabilities: { capabilities: { elicitation: { form: {} } } } });
      stdio.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { ok: true } };
      });
      http = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { ...ENV, BERRY_SERVE_TOKEN: 'adv-token' } });
    });
    after(async () => {
      await stdio?.close();
      await http?.close();
      tmp?.cleanup();
    });

    for (const server of ['legacy', 'modern']) {
      it(`${server}: the serve client's progress carries neither the secret nor 2 MB`, async () => {
        const seen: { progress: number; message?: string }[] = [];
        const notes = [...SECRET_NOTES, { progress: 5, message: '{{x:2000000}}' }];
        const result = await run(stdio.client, call(server, 'progress', { notes }), { onprogress: (p) => seen.push(p) });
        assert.equal(result.isError, undefined, texts(result).join('\n'));
        assert.ok(seen.length > 0);
        assert.ok(!leaks(JSON.stringify(seen)), JSON.stringify(seen).slice(0, 2000));
        for (const p of seen) assert.ok((p.message ?? '').length <= 1100, `a progress message of ${p.message?.length} characters`);
      });

      it(`${server}: an elicitation forwarded to the serve client is masked`, async () => {
        asked.length = 0;
        const requestedSchema = { type: 'object', properties: { key: { type: 'string', title: `{{env:${VAR}}}`, default: `{{pct:${VAR}}}` } } };
        const result = await run(stdio.client, call(server, 'ask', { message: `Confirm the deploy key {{env:${VAR}}}`, requestedSchema }));
        assert.equal(result.isError, undefined, texts(result).join('\n'));
        assert.equal(asked.length, 1, texts(result).join('\n'));
        assert.ok(!leaks(JSON.stringify(asked)), JSON.stringify(asked));
      });
    }

    it("one client's result keys never show in another client's mcp_describe", async () => {
      const a = await http.connect('adv-token');
      const b = await http.connect('adv-token');
      const describe = `const d = await tools.mcp_describe({ server: 'legacy', tool: 'keys' }); return d.returns ?? '';`;
      const taught = await run(a, `${call('legacy', 'keys', { keys: ['alphaOnlyKey', 'sharedField'] })}`);
      assert.equal(taught.isError, undefined, texts(taught).join('\n'));
      const mine = await run(a, describe);
      assert.match(String(mine.structuredContent?.['result']), /alphaOnlyKey/, 'the client that taught it sees it');
      const theirs = await run(b, describe);
      assert.equal(theirs.isError, undefined, texts(theirs).join('\n'));
      assert.doesNotMatch(JSON.stringify(theirs), /alphaOnlyKey/);
      const server = await run(b, `return await tools.mcp_describe({ server: 'legacy' });`);
      assert.doesNotMatch(JSON.stringify(server), /alphaOnlyKey/);
    });
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
