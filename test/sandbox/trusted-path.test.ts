import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalMachine } from '../../src/remote/machine/index.js';
import { createInfoCache, resolveTrusted, type TrustContext } from '../../src/remote/machine/sandbox/trusted-path.js';

describe('sandbox: mount paths resolved without a symlink a confined server could have placed', () => {
  const machine = new LocalMachine();
  const self = process.getuid?.() ?? 0;
  let root: string;
  /** As root: servers are another uid, only ownership and mode bits count. */
  let asRoot: TrustContext;
  /** As a user: servers share the user's uid, so the user's own directories inside `writable` count too. */
  const asUser = (writable: string[]): TrustContext => ({ self, serversAreSelf: true, writable, homesDir: join(root, 'homes') });
  const resolve = (path: string, context: TrustContext): ReturnType<typeof resolveTrusted> => resolveTrusted(machine, path, context, createInfoCache());
  const dir = (path: string, mode = 0o755): string => {
    mkdirSync(path, { recursive: true });
    chmodSync(path, mode);
    return path;
  };

  before(() => {
    // Real path: the walk reports the object's own path, and tmpdir may itself be a link.
    root = realpathSync(mkdtempSync(join(tmpdir(), 'berry-trusted-')));
    chmodSync(root, 0o755);
    asRoot = { self, serversAreSelf: false, writable: [], homesDir: join(root, 'homes') };
    dir(join(root, 'real', 'deep'));
    writeFileSync(join(root, 'real', 'file'), 'x');
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  it('follows a link in a directory no confined server can change, and reports the real path', async () => {
    const trusted = dir(join(root, 'trusted'));
    symlinkSync(join(root, 'real'), join(trusted, 'link'));
    const found = await resolve(join(trusted, 'link', 'deep'), asRoot);
    assert.deepEqual([found.kind, found.kind === 'found' && found.real, found.kind === 'found' && found.exposed], ['found', join(root, 'real', 'deep'), false]);
    // Physical "..": the parent of what the link names, not of the link.
    const up = await resolve(`${trusted}/link/deep/../../trusted`, asRoot);
    assert.equal(up.kind === 'found' && up.real, trusted, JSON.stringify(up));
  });

  it('refuses a link where the servers can write: an rw mount of a user, a private home, a group- or world-writable directory', async () => {
    const rw = dir(join(root, 'rw'));
    symlinkSync(join(root, 'real'), join(rw, 'link'));
    assert.equal((await resolve(join(rw, 'link'), asUser([]))).kind, 'found', "outside the rw mounts a user link is the user's");
    const refused = await resolve(join(rw, 'link', 'deep'), asUser([rw]));
    assert.deepEqual(refused, { kind: 'untrusted-link', link: join(rw, 'link'), target: join(root, 'real'), dir: rw });
    const home = dir(join(root, 'homes', 'server'));
    symlinkSync(join(root, 'real'), join(home, 'link'));
    assert.equal((await resolve(join(home, 'link'), asUser([]))).kind, 'untrusted-link');
    for (const mode of [0o775, 0o777]) {
      const open = dir(join(root, `open-${mode.toString(8)}`), mode);
      symlinkSync(join(root, 'real'), join(open, 'link'));
      assert.equal((await resolve(join(open, 'link'), asRoot)).kind, 'untrusted-link', `mode ${mode.toString(8)}`);
    }
  });

  it('a sticky world-writable directory (/tmp) protects entries of root and berry-mcp', async () => {
    const sticky = dir(join(root, 'sticky'), 0o1777);
    symlinkSync(join(root, 'real'), join(sticky, 'link'));
    assert.equal((await resolve(join(sticky, 'link'), asRoot)).kind, 'found');
  });

  it('reports where a path stops existing, and whether a server could change it on the way', async () => {
    const rw = dir(join(root, 'rw-exposed'));
    dir(join(rw, 'inner'));
    const found = await resolve(join(rw, 'inner'), asUser([rw]));
    assert.equal(found.kind === 'found' && found.exposed, true);
    assert.deepEqual(await resolve(join(root, 'real', 'nope', 'deeper'), asRoot), { kind: 'missing', real: join(root, 'real', 'nope'), exposed: false });
    assert.equal((await resolve(join(root, 'real', 'file', 'below'), asRoot)).kind, 'missing');
  });

  it('a loop of trusted links ends as refused, not as a hang', async () => {
    const loop = dir(join(root, 'loop'));
    symlinkSync(join(loop, 'b'), join(loop, 'a'));
    symlinkSync(join(loop, 'a'), join(loop, 'b'));
    assert.equal((await resolve(join(loop, 'a'), asRoot)).kind, 'untrusted-link');
  });
});
