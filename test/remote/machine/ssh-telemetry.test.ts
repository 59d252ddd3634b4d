// Over SSH the trace context travels as it does locally: in each request's _meta, through the SSH
// channel, to a stdio server that runs on the remote machine; the spans name the machine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { createMcpHost, type McpHost } from '../../../src/bindings/index.js';
import { SshMachine } from '../../../src/remote/machine/ssh/ssh-machine.js';
import type { TraceRecord } from '../../support/fixture-servers.js';
import { useOtel } from '../../support/otel.js';
import { traceServerPath } from '../../support/paths.js';
import { remoteProject, sshMachineOptions, startSshdOrSkip, type Sshd } from '../../ssh/sshd.js';

describe('telemetry over SSH: the trace context reaches a stdio server on the remote machine', function () {
  this.timeout(60_000);
  const otel = useOtel();
  let sshd: Sshd;
  let project: string;
  let host: McpHost | undefined;
  let machine: SshMachine | undefined;

  before(async function () {
    sshd = await startSshdOrSkip(this, 'the SSH telemetry suite');
    project = remoteProject(sshd, 'otel-project', {
      traced: { command: 'node', args: [traceServerPath, '--record=records.jsonl'], protocol: '2025-11-25' },
    });
  });
  after(async () => {
    await host?.close();
    await machine?.close();
    await sshd?.stop();
  });

  it("a call's traceparent arrives in _meta on the remote machine; its span says berry.machine is the SSH host", async () => {
    machine = new SshMachine(sshMachineOptions(sshd));
    host = createMcpHost({ machine, cwd: project, configPath: 'mcp.json' });
    const parent = trace.getTracer('test').startSpan('client');
    const result = await context.with(trace.setSpan(context.active(), parent), () =>
      host!.call({ server: 'traced', tool: 'echo', arguments: { text: 'over ssh' } }),
    );
    parent.end();
    assert.deepEqual(result.content, [{ type: 'text', text: 'over ssh' }]);
    const span = otel.spans().find((s) => s.name === 'tools/call echo');
    assert.ok(span);
    assert.equal(span.spanContext().traceId, parent.spanContext().traceId);
    assert.equal(span.attributes['berry.machine'], sshd.port === 22 ? sshd.host : `${sshd.host}:${sshd.port}`);
    assert.equal(span.attributes['network.transport'], 'pipe');
    const records = readFileSync(join(project, 'records.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TraceRecord);
    const call = records.find((r) => r.method === 'tools/call');
    assert.equal(call?.traceparent, `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });
});
