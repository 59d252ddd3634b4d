// The CLI loads the OpenTelemetry SDK only when the standard OTEL_* variables ask for it: not for
// --help, not for a plain run; with OTEL_EXPORTER_OTLP_ENDPOINT a `run` exports its spans
// (JSON over HTTP) before it exits. Each Node of CI runs this file (.ci/run), so the export is
// tested on every supported Node.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { otelRequested } from '../../src/cli/otel-env.js';
import { berry } from '../support/berry-cli.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { FIXTURES_DIR, traceServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const SDK = /@opentelemetry\/(sdk-|exporter-|otlp-|resources)|cli\/telemetry\.js/;

describe('berry-mcp and the OpenTelemetry SDK', function () {
  this.timeout(60_000);

  it('which variables ask for it', () => {
    assert.equal(otelRequested({}), false);
    assert.equal(otelRequested({ OTEL_SERVICE_NAME: 'x', OTEL_RESOURCE_ATTRIBUTES: 'a=b' }), false);
    assert.equal(otelRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: ' none ' }), false);
    assert.equal(otelRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(otelRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
    assert.equal(otelRequested({ OTEL_TRACES_EXPORTER: 'console' }), true);
    assert.equal(otelRequested({ OTEL_METRICS_EXPORTER: 'none,otlp' }), true);
    assert.equal(otelRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }), false);
  });

  it('--help and a plain run load none of it; a run with OTEL_EXPORTER_OTLP_ENDPOINT (http/json) exports its spans', async () => {
    const tmp = tempDir();
    const receiver = await startOtlpReceiver();
    try {
      const log = join(tmp.dir, 'imports.log');
      const env = { NODE_OPTIONS: `--import=${join(FIXTURES_DIR, 'import-log.mjs')}`, BERRY_IMPORT_LOG: log, HOME: tmp.dir };
      const help = await berry(['--help'], { cwd: tmp.dir, env });
      assert.equal(help.code, 0, help.stderr);
      // The bundled command, or the ES modules when a tsc build is newer than the bundle.
      assert.match(readFileSync(log, 'utf8'), /dist\/src\/(cli\/launch\.cjs|bin\.js)/, 'the log works');
      assert.doesNotMatch(readFileSync(log, 'utf8'), SDK);
      rmSync(log);
      writeConfig(tmp.dir, { traced: { command: process.execPath, args: [traceServerPath], protocol: '2025-11-25' } });
      const script = 'text((await tools.mcp_call({ server: "traced", tool: "echo", arguments: { text: "hi" } })).content[0].text)';
      const plain = await berry(['run', '-', '--config', 'mcp.json'], { cwd: tmp.dir, env, input: script });
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stdout, 'hi\n');
      assert.doesNotMatch(readFileSync(log, 'utf8'), SDK);
      rmSync(log);
      const exported = await berry(['run', '-', '--config', 'mcp.json'], {
        cwd: tmp.dir,
        env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' },
        input: script,
      });
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(exported.stdout, 'hi\n');
      assert.match(readFileSync(log, 'utf8'), /@opentelemetry\/sdk-node/, 'the control: the log sees the SDK when asked');
      // Exported before the command exited: nothing to wait for.
      const names = receiver.spans().map((s) => s.name);
      for (const name of ['berry.run', 'tools/call echo', 'berry.connection.start', 'initialize'])
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      const traceIds = new Set(receiver.spans().map((s) => s.traceId));
      assert.equal(traceIds.size, 1, 'one trace');
      assert.match(JSON.stringify(receiver.bodies('/v1/traces')), /"service\.name","value":\{"stringValue":"berry-mcp"\}/);
      // The command line is not on the resource (a `call KEY=VALUE` may hold a secret).
      assert.doesNotMatch(JSON.stringify(receiver.bodies('/v1/traces')), /process\.command|mcp\.json/);
    } finally {
      await receiver.close();
      tmp.cleanup();
    }
  });
});
