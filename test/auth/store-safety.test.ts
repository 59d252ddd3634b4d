import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordName, TokenStore } from '../../src/auth/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { LocalMachine, SshMachine, type Machine } from '../../src/remote/machine/index.js';
import { SshdUnavailableError, sshMachineOptions, startSshd, type Sshd } from '../ssh/sshd.js';
import { startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { testHosts } from './helpers.js';

const URL_ = 'https://mcp.example.com/mcp';
/** The file of URL_'s record in `dir`. */
const recordPath = (dir: string): string => `${dir}/${recordName(URL_)}.json`;
const OTHER_UID = 65534;
const isRoot = process.getuid?.() === 0;

function unsafe(path: string, problem: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(isBerryError(error), String(error));
    assert.equal(error.code, 'MCP_TOKEN_STORE_UNSAFE', error.message);
    assert.ok(error.message.includes(path), error.message);
    assert.match(error.message, problem);
    return true;
  };
}

/** Every way in refuses the same: read, update (sign-in), the refresh lock, logout. */
async function refusedEverywhere(machine: Machine, dir: string, path: string, problem: RegExp): Promise<void> {
  const store = TokenStore.inDir(machine, dir, URL_);
  await assert.rejects(store.read(), unsafe(path, problem));
  await assert.rejects(
    store.update((r) => ({ ...r, client: { client_id: 'c' } })),
    unsafe(path, problem),
  );
  await assert.rejects(
    store.withLock(async () => 'in'),
    (error: unknown) => isBerryError(error) && error.code === 'MCP_TOKEN_STORE_UNSAFE',
  );
}

describe('auth: the token store refuses what its user did not make', () => {
  const machine = new LocalMachine();
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('berry-store-safety-');
  });
  afterEach(() => tmp.cleanup());

  it('a directory owned by another user, mode 777', async function () {
    if (!isRoot) this.skip();
    const dir = join(tmp.dir, 'planted');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    chownSync(dir, OTHER_UID, OTHER_UID);
    await refusedEverywhere(machine, dir, dir, /owned by uid 65534, not by this user \(uid 0\)/);
    await assert.rejects(TokenStore.inDir(machine, dir, URL_).remove(), unsafe(dir, /owned by uid 65534/));
    assert.deepEqual(readdirSync(dir), [], 'nothing was written into it');
  });

  it('a directory of ours writable by others or by its group', async () => {
    const dir = join(tmp.dir, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    await refusedEverywhere(machine, dir, dir, /writable by every user \(mode 0777\)/);
    chmodSync(dir, 0o770);
    await refusedEverywhere(machine, dir, dir, /writable by its group/);
    assert.deepEqual(readdirSync(dir), []);
    chmodSync(dir, 0o700);
    const store = TokenStore.inDir(machine, dir, URL_);
    await store.update((r) => ({ ...r, client: { client_id: 'c' } }));
    assert.equal((await store.read()).client?.client_id, 'c');
  });

  it('a symlink at the token directory', async () => {
    const real = join(tmp.dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(tmp.dir, 'link');
    symlinkSync(real, link);
    await refusedEverywhere(machine, link, link, /symbolic link/);
    assert.deepEqual(readdirSync(real), []);
  });

  it('a symlink at the token file: neither read through nor written through', async () => {
    const dir = join(tmp.dir, 'tokens');
    mkdirSync(dir, { mode: 0o700 });
    const store = TokenStore.inDir(machine, dir, URL_);
    const victim = join(tmp.dir, 'victim.json');
    const content = JSON.stringify({ serverUrl: URL_, tokens: { access_token: 'planted', token_type: 'bearer', obtained_at: 1 } });
    writeFileSync(victim, content, { mode: 0o600 });
    symlinkSync(victim, recordPath(dir));
    await assert.rejects(store.read(), unsafe(recordPath(dir), /symbolic link/));
    await assert.rejects(
      store.update((r) => ({ ...r, client: { client_id: 'c' } })),
      unsafe(recordPath(dir), /symbolic link/),
    );
    assert.equal(readFileSync(victim, 'utf8'), content, 'the link target is untouched');
    // Logout removes the link itself, never what it points to.
    assert.equal(await store.remove(), true);
    assert.ok(existsSync(victim));
  });

  it('a token file owned by another user, or writable by others', async () => {
    const dir = join(tmp.dir, 'tokens');
    mkdirSync(dir, { mode: 0o700 });
    const store = TokenStore.inDir(machine, dir, URL_);
    writeFileSync(recordPath(dir), JSON.stringify({ serverUrl: URL_ }), { mode: 0o666 });
    chmodSync(recordPath(dir), 0o666);
    await assert.rejects(store.read(), unsafe(recordPath(dir), /writable by every user/));
    if (!isRoot) return;
    chmodSync(recordPath(dir), 0o600);
    chownSync(recordPath(dir), OTHER_UID, OTHER_UID);
    await assert.rejects(store.read(), unsafe(recordPath(dir), /owned by uid 65534/));
    await assert.rejects(
      store.update((r) => r),
      unsafe(recordPath(dir), /owned by uid 65534/),
    );
  });
});

describe('auth: a host with a planted token directory', function () {
  this.timeout(60_000);
  it('fails the call and the sign-in with MCP_TOKEN_STORE_UNSAFE, sending no token request', async () => {
    const tmp = tempDir('berry-store-host-');
    const fixture = await startOAuthFixture();
    const hosts = testHosts();
    try {
      const dir = join(tmp.dir, 'tokens');
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const configPath = writeConfig(tmp.dir, { docs: { url: fixture.url } });
      const { host } = hosts.open(configPath, dir);
      await assert.rejects(host.call({ server: 'docs', tool: 'whoami' }), unsafe(dir, /writable by every user/));
      await assert.rejects(host.authorize('docs'), unsafe(dir, /writable by every user/));
      await assert.rejects(host.logout('docs'), unsafe(dir, /writable by every user/));
      const stats = await fixture.stats();
      assert.equal(stats.codeExchanges + stats.registrations, 0);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      await hosts.closeAll();
      await fixture.close();
      tmp.cleanup();
    }
  });
});

describe('auth: the token store over SSH refuses what its user did not make', function () {
  this.timeout(60_000);
  let sshd: Sshd;
  let machine: SshMachine;

  before(async function () {
    try {
      sshd = await startSshd();
    } catch (error) {
      if (error instanceof SshdUnavailableError && process.env.CI !== 'true') {
        console.warn(`    (skipping the SSH store test: ${error.message})`);
        this.skip();
      }
      throw error;
    }
    machine = new SshMachine(sshMachineOptions(sshd));
  });
  after(async () => {
    await machine?.close();
    await sshd?.stop();
  });

  it('writes and reads its own store, and refuses a planted directory and a symlinked token file', async () => {
    const uid = await machine.userId();
    assert.equal(String(uid), (await sshd.exec('id -u')).trim());
    // Made by the remote user: accepted.
    const own = `${sshd.homeDir}/.berry-store-test-${process.pid}`;
    const store = TokenStore.inDir(machine, own, URL_);
    try {
      await store.update((r) => ({ ...r, client: { client_id: 'remote' } }));
      assert.equal((await store.read()).client?.client_id, 'remote');
      assert.equal((await machine.fileInfo(recordPath(own)))?.mode, 0o600);
      // A symlink at the token path, made by the remote user themselves.
      await sshd.exec(`rm -f '${recordPath(own)}' && ln -s /etc/passwd '${recordPath(own)}'`);
      await assert.rejects(store.read(), unsafe(recordPath(own), /symbolic link/));
      await assert.rejects(
        store.update((r) => r),
        unsafe(recordPath(own), /symbolic link/),
      );
    } finally {
      await sshd.exec(`rm -rf '${own}'`);
    }
    if (!isRoot) return;
    // Planted by another user (root here), mode 777, where the remote user can reach it.
    const planted = join(sshd.dir, `planted-${process.pid}`);
    mkdirSync(planted);
    chmodSync(planted, 0o777);
    await refusedEverywhere(machine, planted, planted, new RegExp(`owned by uid 0, not by this user \\(uid ${uid}\\)`));
    assert.deepEqual(readdirSync(planted), [], 'nothing was written into it');
  });
});
