import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { faultEntry } from '../support/fixture-servers.js';
import { filesystemPath, PROJECT_ROOT } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

/** Pids of live processes whose environment contains `marker`. */
function pidsWithEnv(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker) && alive(Number(entry))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours.
    }
  }
  return pids;
}

/** Running, not a zombie (a container's pid 1 may never reap an orphan). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

describe('berry-mcp run when its parent is killed', function () {
  this.timeout(30_000);
  let tmp: ReturnType<typeof tempDir>;
  before(() => (tmp = tempDir()));
  after(() => tmp.cleanup());

  it('the re-executed child notices SIGKILL of the bin, cancels its calls, stops its servers and exits', async () => {
    const cancelLog = join(tmp.dir, 'cancel.log');
    const eventLog = join(tmp.dir, 'events.log');
    const marker = join(tmp.dir, 'calls-sent');
    writeConfig(tmp.dir, {
      fault: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog } }),
      files: { command: process.execPath, args: [filesystemPath, tmp.dir] },
    });
    // The marker file is written once the three calls are under way (the fault server already warm).
    writeFileSync(
      join(tmp.dir, 'script.js'),
      `await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "warm" } });
      const sleeps = Promise.all([1, 2, 3].map(() => tools.mcp_call({ server: "fault", tool: "sleep", arguments: { ms: 60000 } })));
      await tools.mcp_call({ server: "files", tool: "write_file", arguments: { path: ${JSON.stringify(marker)}, content: "sent" } });
      await sleeps;`,
    );
    const parent = spawn(process.execPath, [BIN, 'run', 'script.js', '--config', 'mcp.json'], { cwd: tmp.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    parent.stdout.resume();
    parent.stderr.resume();
    try {
      await waitFor(() => existsSync(marker), 20_000, 'the calls to be sent');
      const [server] = pidsWithEnv(cancelLog);
      const [child] = childrenOf(parent.pid!);
      assert.ok(child !== undefined && alive(child), 'the re-executed child runs');
      await waitForEvent(eventLog, 'started sleep', { count: 3 });
      parent.kill('SIGKILL');
      await waitFor(() => !alive(child), 5000, 'the child to exit');
      await waitFor(() => !alive(server!), 5000, 'the server to stop');
      await waitFor(() => existsSync(cancelLog) && readFileSync(cancelLog, 'utf8').split('\n').filter(Boolean).length === 3, 5000, 'three cancellations');
    } finally {
      parent.kill('SIGKILL');
      for (const pid of pidsWithEnv(cancelLog)) process.kill(pid, 'SIGKILL');
    }
  });

  it('a hangup of the whole process group (terminal closed) also cancels the calls and stops the servers', async () => {
    const cancelLog = join(tmp.dir, 'cancel-hup.log');
    const eventLog = join(tmp.dir, 'events-hup.log');
    const marker = join(tmp.dir, 'call-sent');
    writeConfig(tmp.dir, {
      fault: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog } }),
      files: { command: process.execPath, args: [filesystemPath, tmp.dir] },
    });
    writeFileSync(
      join(tmp.dir, 'script.js'),
      `await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "warm" } });
      const sleep = tools.mcp_call({ server: "fault", tool: "sleep", arguments: { ms: 60000 } });
      await tools.mcp_call({ server: "files", tool: "write_file", arguments: { path: ${JSON.stringify(marker)}, content: "sent" } });
      await sleep;`,
    );
    const parent = spawn(process.execPath, [BIN, 'run', 'script.js', '--config', 'mcp.json'], {
      cwd: tmp.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    parent.stdout.resume();
    parent.stderr.resume();
    const exited = new Promise<number | null>((resolve) => parent.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => existsSync(marker), 20_000, 'the call to be sent');
      const [server] = pidsWithEnv(cancelLog);
      await waitForEvent(eventLog, 'started sleep');
      process.kill(-parent.pid!, 'SIGHUP');
      assert.notEqual(await exited, null);
      await waitFor(() => !alive(server!), 5000, 'the server to stop');
      await waitFor(() => existsSync(cancelLog) && readFileSync(cancelLog, 'utf8').includes('cancelled'), 5000, 'the cancellation');
    } finally {
      try {
        process.kill(-parent.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      for (const pid of pidsWithEnv(cancelLog)) process.kill(pid, 'SIGKILL');
    }
  });
});
