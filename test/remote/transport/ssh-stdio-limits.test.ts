import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMcpHost, type McpHost } from '../../../src/bindings/index.js';
import { isBerryError, type BerryError } from '../../../src/common/errors.js';
import { SshMachine } from '../../../src/remote/machine/ssh/ssh-machine.js';
import { faultServerPath } from '../../support/paths.js';
import { processAlive } from '../../support/processes.js';
import { remoteProject, sshMachineOptions, startSshdOrSkip, type Sshd } from '../../ssh/sshd.js';

// The stdio transport's bounds hold for servers over SSH too: the same line reader parses an exec
// channel's stdout, and a failed transport stops the remote process group. (A remote server that
// closes only its stdout cannot be noticed: SSH ends a channel's output once stdout and stderr
// have both closed.)
describe('stdio limits over SSH', function () {
  this.timeout(60_000);
  let sshd: Sshd;
  let project: string;
  let machine: SshMachine;
  let host: McpHost;

  before(async function () {
    sshd = await startSshdOrSkip(this, 'the SSH limits suite');
    const stubborn = { command: 'node', args: [faultServerPath, '--ignore-stdin-eof', '--ignore-sigterm'] };
    project = remoteProject(sshd, 'limits', { stubborn });
    machine = new SshMachine(sshMachineOptions(sshd));
    host = createMcpHost({ machine, cwd: project, configPath: 'mcp.json', maxMessageBytes: 4 * 1024 * 1024 });
  });

  after(async () => {
    await host?.close();
    await machine?.close();
    await sshd?.stop();
  });

  const pid = async (): Promise<number> =>
    (JSON.parse(((await host.call({ server: 'stubborn', tool: 'whoami', arguments: {} })).content[0] as { text: string }).text) as { pid: number }).pid;

  const rejection = async (promise: Promise<unknown>, code: string): Promise<BerryError> => {
    const error = await promise.then(
      () => assert.fail(`expected ${code}`),
      (e: unknown) => e,
    );
    assert.ok(isBerryError(error), String(error));
    assert.equal(error.code, code, error.message);
    return error;
  };

  const gone = async (remotePid: number): Promise<void> => {
    for (let i = 0; i < 250 && processAlive(remotePid); i++) await sleep(20);
    assert.ok(!processAlive(remotePid), `remote process ${remotePid} still runs`);
  };

  it('a result just under maxMessageBytes comes back whole', async () => {
    const bytes = 4 * 1024 * 1024 - 200;
    const result = await host.call({ server: 'stubborn', tool: 'big', arguments: { bytes } });
    assert.equal((result.content[0] as { text: string }).text.length, bytes);
  });

  it('a message over it is MCP_MESSAGE_TOO_LARGE, the stubborn remote server is killed, the next call reconnects', async () => {
    const before = await pid();
    const error = await rejection(host.call({ server: 'stubborn', tool: 'big', arguments: { bytes: 8 * 1024 * 1024 } }), 'MCP_MESSAGE_TOO_LARGE');
    assert.match(error.message, /over the limit of 4194304 bytes/);
    await gone(before);
    assert.notEqual(await pid(), before);
  });
});
