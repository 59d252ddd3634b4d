// catalog-store (saved catalogs): list answers from a catalog saved on the machine without starting the server,
// refreshes a stale one in the background, never uses one of a changed entry, and dials on refresh.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost } from '../../src/bindings/index.js';
import { faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const SECRET = 'catalog-secret-value-4711';

describe('saved catalogs', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let catalogs: string;
  let marker: string;

  /** A fault-server entry that appends a line to `marker` each time it starts. */
  const entry = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    command: 'sh',
    args: ['-c', `echo started >> "${marker}"; exec "${process.execPath}" "${faultServerPath}"`],
    env: { SECRET_TOKEN: SECRET },
    ...extra,
  });
  const starts = (): number => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);
  const files = (): string[] => (existsSync(catalogs) ? readdirSync(catalogs).filter((f) => f.endsWith('.json')) : []);

  async function list(config: string, refresh = false) {
    const host = createMcpHost({ cwd: tmp.dir, configPath: config, savedCatalogs: { dir: catalogs } });
    try {
      return await host.list(refresh ? { refresh } : {});
    } finally {
      await host.close();
    }
  }

  beforeEach(() => {
    tmp = tempDir();
    catalogs = join(tmp.dir, 'cache', 'catalogs');
    marker = join(tmp.dir, 'starts.log');
  });
  afterEach(() => tmp.cleanup());

  it('saves after a listing and answers the next list from it without starting the server', async () => {
    const config = writeConfig(tmp.dir, { fault: entry({ disabledTools: ['crash'] }) });
    const cold = await list(config);
    assert.equal(starts(), 1);
    assert.equal(cold.servers[0]?.status === 'connected' && cold.servers[0].cached, undefined);
    assert.equal(files().length, 1);
    const file = join(catalogs, files()[0]!);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!readFileSync(file, 'utf8').includes(SECRET), 'no secret in the saved catalog');

    const warm = await list(config);
    assert.equal(starts(), 1, 'the server was not started');
    const server = warm.servers[0]!;
    assert.ok(server.status === 'connected' && server.cached !== undefined);
    assert.ok(server.cached.ageMs >= 0 && server.cached.ageMs < 60_000);
    assert.ok(cold.servers[0]!.status === 'connected');
    assert.deepEqual(server.tools, cold.servers[0]!.tools, 'the same filtered tools');
  });

  it('does not write the catalog again for every warm list of a live connection', async () => {
    const config = writeConfig(tmp.dir, { fault: entry() });
    const host = createMcpHost({ cwd: tmp.dir, configPath: config, savedCatalogs: { dir: catalogs } });
    try {
      await host.list({});
      await host.readConfig(); // the save runs in the background: let it land
      await new Promise((resolve) => setTimeout(resolve, 200));
      const file = join(catalogs, files()[0]!);
      const first = statSync(file);
      for (let i = 0; i < 5; i++) await host.list({});
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Each write replaces the file by a rename: another inode.
      assert.equal(statSync(file).ino, first.ino, 'the same listing was not written again');
      assert.equal(starts(), 1);
    } finally {
      await host.close();
    }
  });

  it('answers from the live connection while it is open, and from the saved catalog once it closed', async () => {
    const config = writeConfig(tmp.dir, { fault: entry() });
    const host = createMcpHost({ cwd: tmp.dir, configPath: config, savedCatalogs: { dir: catalogs }, idleTimeoutMs: 300 });
    try {
      const cached = async (): Promise<boolean> => {
        const server = (await host.list({})).servers[0]!;
        return server.status === 'connected' && server.cached !== undefined;
      };
      assert.equal(await cached(), false);
      await waitFor(() => files().length === 1, 5000, 'the catalog to be saved');
      assert.equal(await cached(), false, 'the open connection answers, not the saved catalog');
      // The idle connection closes after 300 ms (a live list would keep it busy: wait without one).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await cached(), true, 'the saved catalog answers once the connection closed');
      assert.equal(starts(), 1, 'the saved catalog answered');
    } finally {
      await host.close();
    }
  });

  it('dials every server on refresh, and never uses the catalog of a changed entry', async () => {
    const config = writeConfig(tmp.dir, { fault: entry() });
    await list(config);
    await list(config, true);
    assert.equal(starts(), 2);
    const changed = writeConfig(tmp.dir, { fault: entry({ env: { SECRET_TOKEN: `${SECRET}-rotated` } }) });
    const result = await list(changed);
    assert.equal(starts(), 3);
    assert.ok(result.servers[0]!.status === 'connected' && result.servers[0]!.cached === undefined);
    assert.equal(files().length, 2);
  });

  it('answers from a stale catalog and refreshes it in the background', async () => {
    const config = writeConfig(tmp.dir, { fault: entry() });
    await list(config);
    const file = join(catalogs, files()[0]!);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { savedAt: number; ttlMs: number };
    writeFileSync(file, JSON.stringify({ ...saved, savedAt: saved.savedAt - saved.ttlMs - 1000 }));
    const stale = await list(config);
    const server = stale.servers[0]!;
    assert.ok(server.status === 'connected' && server.cached !== undefined && server.cached.ageMs > saved.ttlMs);
    assert.equal(starts(), 2, 'the background refresh started the server once');
    const refreshed = JSON.parse(readFileSync(file, 'utf8')) as { savedAt: number };
    assert.ok(refreshed.savedAt >= saved.savedAt, 'saved again');
  });

  it('ignores a corrupt catalog file', async () => {
    const config = writeConfig(tmp.dir, { fault: entry() });
    await list(config);
    writeFileSync(join(catalogs, files()[0]!), '{"format":1,"savedAt":');
    const result = await list(config);
    assert.ok(result.servers[0]!.status === 'connected' && result.servers[0]!.cached === undefined);
    assert.equal(starts(), 2);
  });

  it("keeps a catalog fresh for the server's ttlMs when its list result gives one", async () => {
    const config = writeConfig(tmp.dir, {
      fault: { command: process.execPath, args: [faultServerPath, '--ttl-ms=1'] },
    });
    await list(config);
    const saved = JSON.parse(readFileSync(join(catalogs, files()[0]!), 'utf8')) as { ttlMs: number };
    assert.equal(saved.ttlMs, 1);
  });
});
