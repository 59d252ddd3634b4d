// A modern-only (2026-07-28, legacy: 'reject') v2 server spawned over SSH on a real sshd: the era
// is found on the remote stdio pipe like a local one, and every operation works.
import assert from 'node:assert/strict';
import { createMcpHost, type McpHost } from '../../src/bindings/index.js';
import { SshMachine } from '../../src/remote/machine/ssh/ssh-machine.js';
import { v2ServerPath } from '../support/paths.js';
import { remoteProject, sshMachineOptions, startSshdOrSkip, type Sshd } from '../ssh/sshd.js';

describe('protocol eras over SSH: a modern-only stdio server on the remote machine', function () {
  this.timeout(30_000);
  let sshd: Sshd;
  let machine: SshMachine;
  let host: McpHost;

  before(async function () {
    sshd = await startSshdOrSkip(this, 'the modern-only SSH suite');
    const project = remoteProject(sshd, 'modern', { modern: { command: 'node', args: [v2ServerPath, '--modern-only'] } });
    machine = new SshMachine(sshMachineOptions(sshd));
    host = createMcpHost({
      machine,
      cwd: project,
      configPath: 'mcp.json',
      onElicitation: async () => ({ action: 'accept', content: { name: 'remote' } }),
    });
  });

  after(async () => {
    await host?.close();
    await machine?.close();
    await sshd?.stop();
  });

  it('lists it as 2026-07-28 and calls, reads, prompts and elicits through it', async () => {
    const { servers } = await host.list({});
    assert.ok(servers[0]?.status === 'connected' && servers[0].protocol === '2026-07-28', JSON.stringify(servers[0]));
    const echo = await host.call({ server: 'modern', tool: 'echo', arguments: { text: 'over ssh' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'over ssh' }]);
    const answered = await host.call({ server: 'modern', tool: 'elicit', arguments: {} });
    const elicited = JSON.parse((answered.content[0] as { text: string }).text) as { answer: unknown };
    assert.deepEqual(elicited.answer, { kind: 'elicit', action: 'accept', content: { name: 'remote' } });
    const read = await host.read({ server: 'modern', uri: 'fixture://one' });
    assert.equal((read.contents[0] as { text?: string }).text, 'contents of fixture://one');
    const prompt = await host.prompt({ server: 'modern', name: 'greet', arguments: { who: 'ssh' } });
    assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'greet ssh' });
    const steps: number[] = [];
    await host.call({ server: 'modern', tool: 'progress', arguments: { steps: 2 } }, { onProgress: (e) => steps.push(e.progress) });
    assert.deepEqual(steps, [1, 2]);
  });
});
