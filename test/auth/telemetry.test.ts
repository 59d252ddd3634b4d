// The sign-in a connection start waits for has its span (berry.sign_in) under the start's, and
// no token or client secret of the sign-in reaches a span.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { spanText, useOtel } from '../support/otel.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { firstText, storedSecrets, testHosts } from './helpers.js';

describe('auth: the sign-in in the trace', function () {
  this.timeout(60_000);
  const otel = useOtel();
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let configPath: string;
  let tokenDir: string;
  const hosts = testHosts();

  before(async () => {
    tmp = tempDir('berry-auth-otel-');
    fixture = await startOAuthFixture();
    tokenDir = join(tmp.dir, 'tokens');
    configPath = writeConfig(tmp.dir, { docs: { url: fixture.url } });
  });
  afterEach(() => hosts.closeAll());
  after(async () => {
    await fixture.close();
    tmp.cleanup();
  });

  it('a first call that signs in: berry.sign_in under berry.connection.start, the call after it, no token in any span', async () => {
    const { host } = hosts.open(configPath, tokenDir);
    const parent = trace.getTracer('test').startSpan('client');
    const result = await context.with(trace.setSpan(context.active(), parent), () => host.call({ server: 'docs', tool: 'whoami' }));
    parent.end();
    assert.ok(firstText(result).includes('scopes'));
    const spans = otel.spans();
    const signIn = spans.find((s) => s.name === 'berry.sign_in');
    assert.ok(signIn, spans.map((s) => s.name).join(', '));
    assert.equal(signIn.attributes['berry.server'], 'docs');
    const starts = spans.filter((s) => s.name === 'berry.connection.start');
    assert.ok(
      starts.some((start) => start.spanContext().spanId === signIn.parentSpanContext?.spanId),
      'the sign-in is under a connection start',
    );
    const call = spans.find((s) => s.name === 'tools/call whoami');
    assert.ok(call && call.spanContext().traceId === parent.spanContext().traceId);
    const secrets = storedSecrets(tokenDir);
    assert.ok(secrets.length > 0, 'the sign-in stored its tokens');
    for (const span of spans) for (const secret of secrets) assert.ok(!spanText(span).includes(secret), `${span.name} shows a stored secret`);
  });
});
