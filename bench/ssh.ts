/**
 * Section 7: a host on an SshMachine, against the private OpenSSH sshd of test/ssh on loopback.
 * SSH connect time (TCP + handshake + auth of a new machine), then warm echo calls on
 * server-everything started over SSH against the same server started locally, in alternating
 * rounds. Reports "skipped: <reason>" when sshd or the SSH machine cannot be had here.
 */
import { createHost, type Host } from '../src/index.js';
import { SshMachine } from '../src/remote/machine/ssh/ssh-machine.js';
import { SERVER_EVERYTHING, sshMachineOptions, startSshd, type Sshd } from '../test/ssh/sshd.js';
import { ECHO, tempDir, writeConfig } from './fixtures.js';
import { messageOf, missing, row, value, type Row } from './rows.js';
import { alternate, pairedDifferences, timeEach, timeOnce } from './stats.js';

const SECTION = '7 SSH';
const CALLS = 200;
const ROUNDS = 5;
const CONNECTS = 8;
const TARGET = { max: 2, label: '≤ local + 2 ms' };

export default async function sshCalls(): Promise<Row[]> {
  let sshd: Sshd;
  try {
    // Plain loopback: the network-namespace variant of the harness measures veth, not SSH.
    sshd = await startSshd({ namespace: false });
  } catch (error) {
    return [missing(SECTION, 'warm call over SSH - local', `skipped: sshd could not start: ${messageOf(error)}`, TARGET)];
  }
  const { dir, remove } = tempDir('ssh');
  const options = sshMachineOptions(sshd);
  // Both sides start the same server the same way: `node` from the machine's PATH.
  const servers = { everything: { command: 'node', args: [SERVER_EVERYTHING] } };
  const hosts: Host[] = [];
  try {
    const connects: number[] = [];
    for (let i = 0; i < CONNECTS; i++) {
      const machine = new SshMachine(options);
      try {
        connects.push(await timeOnce(() => machine.lifetime()));
      } finally {
        await machine.close();
      }
    }
    const remote = createHost({ machine: new SshMachine(options), cwd: sshd.homeDir, configPath: writeConfig(`${sshd.dir}/bench`, servers) });
    const local = createHost({ cwd: dir, configPath: writeConfig(dir, servers) });
    hosts.push(remote, local);
    const firstRemote = await timeOnce(() => remote.call(ECHO));
    const firstLocal = await timeOnce(() => local.call(ECHO));
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        remote: () => timeEach(CALLS, () => remote.call(ECHO)),
        local: () => timeEach(CALLS, () => local.call(ECHO)),
        reread: () => timeEach(CALLS, () => remote.readConfig()),
      },
    );
    return [
      row(SECTION, 'SSH connect (TCP + handshake + auth)', 'ms', connects),
      value(SECTION, 'first call over SSH (connect + spawn + init + call)', 'ms', firstRemote),
      value(SECTION, 'first call locally (spawn + init + call)', 'ms', firstLocal),
      row(SECTION, 'host.call(echo) over SSH, per call', 'ms', r.remote.samples),
      row(SECTION, 'host.call(echo) locally, per call', 'ms', r.local.samples),
      row(SECTION, 'per-operation reread over SSH (host.readConfig())', 'ms', r.reread.samples),
      row(SECTION, 'warm call over SSH - local', 'ms (diff)', pairedDifferences(r.remote.perRoundMedian, r.local.perRoundMedian), {
        target: TARGET,
        note: `per round: median call of ${CALLS} over SSH minus median local call`,
      }),
    ];
  } finally {
    await Promise.all(hosts.map((host) => host.close().catch(() => {})));
    await sshd.stop();
    remove();
  }
}
