import assert from 'node:assert/strict';
import { createRedactor, secretsOfServers } from '../../src/config/index.js';
import { useTestHost } from '../support/test-host.js';

describe('config/redact', () => {
  it('replaces every occurrence of every secret with ***', () => {
    const redact = createRedactor(['tok-123', 'hunter22']);
    assert.equal(redact('a tok-123 b hunter22 c tok-123tok-123'), 'a *** b *** c ******');
  });

  it('redacts longest first so overlapping secrets vanish whole', () => {
    const redact = createRedactor(['abcd', 'abcdefgh', 'efgh-more']);
    assert.equal(redact('xx abcdefgh yy'), 'xx *** yy');
    // Overlapping secrets: neither leaves a piece behind (this was '***-more', the end of efgh-more).
    assert.equal(redact('abcdefgh-more'), '******');
    assert.equal(redact('abcd efgh-more'), '*** ***');
  });

  it('treats regex metacharacters literally', () => {
    const secrets = ['a.b*c', '(x|y)', '[z]', '\\d+', '^$', 'q?{2}/-'];
    const redact = createRedactor(secrets);
    assert.equal(redact(secrets.join(' ')), '*** *** *** *** *** ***');
    assert.equal(redact('aXb*c xy z 12'), 'aXb*c xy z 12');
  });

  it('returns the text unchanged with no secrets, ignoring empty ones', () => {
    for (const secrets of [[], [''], new Set<string>()]) {
      const redact = createRedactor(secrets);
      assert.equal(redact('nothing to hide'), 'nothing to hide');
    }
    assert.equal(createRedactor(['', 'key1'])('key1 and more'), '*** and more');
  });

  it('accepts any iterable and can be reused many times', () => {
    const redact = createRedactor(new Set(['s3cr3t']).values());
    for (let i = 0; i < 3; i++) assert.equal(redact(`line ${i}: s3cr3t`), `line ${i}: ***`);
    assert.equal(redact(''), '');
  });

  it('redacts among many secrets in a large stderr chunk', () => {
    const redact = createRedactor(Array.from({ length: 50 }, (_, i) => `secret-value-${i}-xyz`));
    const chunk = `${'ordinary log line with nothing special in it\n'.repeat(2000)}secret-value-7-xyz`;
    assert.equal(redact(chunk), `${'ordinary log line with nothing special in it\n'.repeat(2000)}***`);
  });
});

describe('config/redact: every rendering of a secret', () => {
  const secret = 'Tr0ub4dor=3;&x y"z\\w/é';
  const redact = createRedactor([secret]);
  const leaks = (text: string): boolean => {
    const out = redact(text);
    // No 6-character run of the secret's letters and digits survives in any form.
    return /Tr0ub4|r0ub4d|0ub4do|ub4dor/i.test(out);
  };

  it('percent-encoded as URL userinfo, path and query put it, either hex case', () => {
    const url = new URL('https://example.com/');
    url.username = 'me';
    url.password = secret;
    url.pathname = `/p/${secret}`;
    url.searchParams.set('token', secret);
    assert.ok(url.href.includes('Tr0ub4dor%3D3%3B'), url.href);
    assert.equal(leaks(url.href), false, redact(url.href));
    assert.equal(leaks(encodeURIComponent(secret)), false);
    assert.equal(leaks(encodeURIComponent(secret).toLowerCase()), false);
    assert.equal(leaks(encodeURI(secret)), false);
    assert.equal(redact(`token=${encodeURIComponent(secret)}&next=1`), 'token=***&next=1');
    // Every byte encoded, letters and digits too (no encoder does it; a hostile server may).
    const everyByte = [...Buffer.from(secret, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    assert.equal(redact(`k=${everyByte}`), 'k=***');
    assert.equal(redact(`k=${everyByte.toUpperCase()}&n=1`), 'k=***&n=1');
  });

  it('form-encoded (+ for space) and JSON-escaped at any depth', () => {
    assert.equal(redact(new URLSearchParams({ q: secret }).toString()), 'q=***');
    assert.equal(redact(JSON.stringify({ secret })), '{"secret":"***"}');
    assert.equal(leaks(JSON.stringify(JSON.stringify({ secret }))), false);
    assert.equal(redact(JSON.stringify(secret).replace('é', '\\u00e9')), '"***"');
  });

  it('lowercased, as in a host name', () => {
    const tenant = createRedactor(['AcmeTenant-Secret42']);
    assert.equal(tenant(new URL('https://AcmeTenant-Secret42.example.com/mcp').href), 'https://***.example.com/mcp');
  });

  it('base64, as in a Basic authorization header', () => {
    const header = `Authorization: Basic ${Buffer.from(`user:${secret}`).toString('base64')}`;
    const out = redact(header);
    assert.match(out, /\*\*\*/);
    const visible = out.slice('Authorization: Basic '.length).replace(/\*\*\*/g, '');
    assert.ok(visible.length <= 12, out);
  });

  it('a text that starts inside a secret or ends inside one (a tail, a line cut in pieces)', () => {
    const token = 'sk-live-0123456789abcdef';
    const cut = createRedactor([token]);
    assert.equal(cut(`${token.slice(9)}\nnext line`), '***\nnext line');
    assert.equal(cut(`header ${token.slice(0, 12)}`), 'header ***');
    // Short or unrelated edges stay.
    assert.equal(cut('sk line ends in ef'), 'sk line ends in ef');
  });

  it('leaves ordinary text alone', () => {
    const text = 'GET /mcp 200 {"ok":true} 100% done + more\\n';
    assert.equal(redact(text), text);
  });

  it('collects the secrets of every server of a config', () => {
    const servers = [
      { name: 'a', status: 'ok', config: { secrets: ['one-secret', 'shared'] } },
      { name: 'b', status: 'disabled', transport: 'stdio' },
      { name: 'c', status: 'ok', config: { secrets: ['shared', 'two-secret'] } },
    ] as unknown as Parameters<typeof secretsOfServers>[0];
    assert.deepEqual(secretsOfServers(servers).sort(), ['one-secret', 'shared', 'two-secret']);
  });
});

describe('config/redact in server output (real processes)', function () {
  this.timeout(30_000);
  const SECRET = 'Sup3r-S3cret-Value-0042';
  const t = useTestHost(
    () => {
      process.env['BERRY_REDACT_TEST_SECRET'] = SECRET;
      const node = process.execPath;
      return {
        // The only server configured with the secret.
        owner: { command: node, args: ['-e', 'setTimeout(() => {}, 60000)'], env: { TOKEN: '${BERRY_REDACT_TEST_SECRET}' }, disabled: true },
        owner2: { command: 'berry-no-such-command-xyz', cwd: '/nonexistent/${BERRY_REDACT_TEST_SECRET}' },
        // Another server: it inherits the machine's environment and prints the secret.
        chatty: { command: node, args: ['-e', 'process.stderr.write("env says " + process.env.BERRY_REDACT_TEST_SECRET + "\\n"); process.exit(3)'] },
        // Its 4 KB stderr tail starts in the middle of the secret.
        cut: {
          command: node,
          args: ['-e', `process.stderr.write("a".repeat(10000) + process.env.BERRY_REDACT_TEST_SECRET + "b".repeat(4096 - 12)); process.exit(3)`],
        },
      };
    },
    { options: { configPath: 'mcp.json' } },
  );

  after(() => {
    delete process.env['BERRY_REDACT_TEST_SECRET'];
  });

  const errorOf = async (server: string): Promise<string> => {
    const result = await t.host.list({ server });
    const status = result.servers[0]!;
    assert.equal(status.status, 'error');
    return status.status === 'error' ? `${status.error.message}\n${(status.error as { stderrTail?: string }).stderrTail ?? ''}` : '';
  };

  it('redacts a ${VAR} in cwd from "cwd … missing"', async () => {
    const message = await errorOf('owner2');
    assert.match(message, /cwd "\/nonexistent\/\*\*\*" missing/);
    assert.ok(!message.includes('Sup3r'), message);
  });

  it("redacts another server's secret from this server's stderr", async () => {
    const message = await errorOf('chatty');
    assert.match(message, /env says \*\*\*/);
    assert.ok(!message.includes('S3cret'), message);
  });

  it('a stderr tail that starts inside a secret shows none of it', async () => {
    const message = await errorOf('cut');
    assert.ok(!/Value-0042|alue-00|e-0042/.test(message), message);
    assert.match(message, /\*\*\*b{100}/);
  });
});
