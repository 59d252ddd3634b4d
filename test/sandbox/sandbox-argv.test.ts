import assert from 'node:assert/strict';
import { bwrapArgs, type BwrapInput } from '../../src/remote/machine/sandbox/sandbox-argv.js';
import { parseProbe } from '../../src/remote/machine/sandbox/sandbox-probe.js';
import type { SandboxPolicy } from '../../src/remote/machine/sandbox/sandbox-policy.js';

const PROBE = [
  'bwrap\t/usr/bin/bwrap',
  'link\t/bin\tusr/bin',
  'dir\t/etc',
  'dir\t/home',
  'dir\t/proc',
  'dir\t/root',
  'dir\t/run',
  'dir\t/srv',
  'dir\t/tmp',
  'dir\t/usr',
  'has\t/var/tmp',
  'ns\t0\t',
  'net\t1\tbwrap: loopback: Failed RTM_NEWADDR: Operation not permitted',
  '',
].join('\n');

const POLICY: SandboxPolicy = {
  mode: 'on',
  network: true,
  workspace: 'ro',
  binds: [{ source: '/opt/tool', target: '/data', writable: false }],
  envPass: [],
  home: '/home/u/.config/berry/mcp-homes/s',
};

type Mount = BwrapInput['mounts'][number];
const HOME: Mount = { real: '/home/u/.config/berry/mcp-homes/s', target: '/home/u', writable: true, role: 'home', fd: undefined };
const WORKSPACE: Mount = { real: '/srv/project', target: '/workspace', writable: false, role: 'workspace', fd: undefined };
const DATA: Mount = { real: '/opt/tool', target: '/data', writable: false, role: 'bind', fd: undefined };

function args(overrides: Partial<SandboxPolicy> = {}, input: Partial<BwrapInput> = {}): string[] {
  const policy = { ...POLICY, ...overrides };
  const mounts = input.mounts ?? [HOME, ...(policy.workspace === 'none' ? [] : [{ ...WORKSPACE, writable: policy.workspace === 'rw' }]), DATA];
  return bwrapArgs({
    facts: parseProbe(PROBE),
    policy,
    identity: { kind: 'user' },
    realHome: '/home/u',
    cwd: '/srv/project',
    command: 'node',
    args: ['server.js', '--flag'],
    ...input,
    mounts,
  });
}

/** The argument pairs/triples as one string each, for `includes` checks. */
function joined(list: readonly string[]): string {
  return ` ${list.join(' ')} `;
}

describe('sandbox: the probe and the bwrap command line', () => {
  it('reads the probe: bwrap path, namespaces refused or not, root entries', () => {
    const facts = parseProbe(PROBE);
    assert.equal(facts.bwrap, '/usr/bin/bwrap');
    assert.equal(facts.refused, undefined);
    assert.match(facts.netRefused ?? '', /RTM_NEWADDR/);
    assert.deepEqual(
      facts.roots.find((entry) => entry.path === '/bin'),
      { path: '/bin', kind: 'link', target: 'usr/bin' },
    );
    assert.equal(parseProbe('bwrap\t\n').bwrap, undefined);
    assert.equal(
      parseProbe('bwrap\t/usr/bin/bwrap\nns\t1\tbwrap: No permissions to create a new namespace\n').refused,
      'bwrap: No permissions to create a new namespace',
    );
  });

  it('mounts system directories read-only one by one, leaves home, /root, /tmp and /run out, and drops every capability', () => {
    const list = args();
    const text = joined(list);
    for (const expected of [
      ' --ro-bind /usr /usr ',
      ' --ro-bind /etc /etc ',
      ' --symlink usr/bin /bin ',
      ' --tmpfs /tmp ',
      ' --tmpfs /run ',
      ' --tmpfs /var/tmp ',
      ' --cap-drop ALL ',
      ' --unshare-pid ',
      ' --die-with-parent ',
    ]) {
      assert.ok(text.includes(expected), `${expected} missing from ${text}`);
    }
    for (const hidden of ['/home', '/root', '/tmp', '/run', '/proc'])
      assert.ok(!text.includes(` --ro-bind ${hidden} `), `${hidden} is mounted from the machine`);
    assert.ok(!text.includes('--unshare-net'));
    assert.ok(!text.includes('--new-session'), 'the server must stay in the process group the host signals');
  });

  it('puts the private home over the real one, the workspace at /workspace, then the binds, then the command after --', () => {
    const list = args();
    const text = joined(list);
    const at = (fragment: string): number => text.indexOf(fragment);
    assert.ok(at(' --bind /home/u/.config/berry/mcp-homes/s /home/u ') > 0);
    assert.ok(at(' --ro-bind /srv/project /workspace ') > at(' --bind /home/u/.config/berry/mcp-homes/s /home/u '));
    assert.ok(at(' --ro-bind /opt/tool /data ') > at(' --ro-bind /srv/project /workspace '));
    assert.deepEqual(list.slice(-6), ['--chdir', '/workspace', '--', 'node', 'server.js', '--flag']);
    assert.ok(joined(args({ workspace: 'rw' })).includes(' --bind /srv/project /workspace '));
    assert.ok(
      joined(args({}, { mounts: [HOME, { real: '/var/cache/x', target: '/var/cache/x', writable: true, role: 'bind', fd: undefined }] })).includes(
        ' --bind /var/cache/x /var/cache/x ',
      ),
    );
  });

  it('network: false adds a network namespace; workspace "none" hides the working directory at its own path too', () => {
    assert.ok(args({ network: false }).includes('--unshare-net'));
    const none = joined(args({ workspace: 'none' }));
    assert.ok(!none.includes('/workspace'), none);
    assert.ok(none.includes(' --tmpfs /srv/project '), none);
    assert.ok(none.includes(' --chdir /home/u '), none);
    // Inside the (hidden) home, or a top-level directory itself: nothing to hide, nothing to break.
    assert.ok(!joined(args({ workspace: 'none' }, { cwd: '/home/u/project' })).includes('--tmpfs /home/u/project'));
    assert.ok(!joined(args({ workspace: 'none' }, { cwd: '/srv' })).includes('--tmpfs /srv '));
  });

  it('as a user: a user namespace where the server is uid/gid 65534; as root: only what setpriv needs, then setpriv drops to 65534', () => {
    const user = joined(args());
    assert.ok(user.includes(' --unshare-user --uid 65534 --gid 65534 --cap-drop ALL '), user);
    assert.ok(user.includes(' -- node server.js --flag '), user);
    const root = args({}, { identity: { kind: 'root', setpriv: '/usr/bin/setpriv' } });
    const text = joined(root);
    assert.ok(!text.includes('--unshare-user'), 'as root a user namespace would map the server to host uid 0');
    assert.ok(text.includes(' --cap-drop ALL --cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP --cap-add CAP_DAC_READ_SEARCH '), text);
    assert.deepEqual(root.slice(root.indexOf('--') + 1), [
      '/usr/bin/setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
      'node',
      'server.js',
      '--flag',
    ]);
  });

  it('a pinned mount is mounted from its descriptor, read-only or not', () => {
    const text = joined(args({ workspace: 'rw' }, { mounts: [HOME, { ...WORKSPACE, writable: true, fd: 3 }, { ...DATA, fd: 4 }] }));
    assert.ok(text.includes(' --bind-fd 3 /workspace '), text);
    assert.ok(text.includes(' --ro-bind-fd 4 /data '), text);
    assert.ok(!text.includes('/srv/project'), 'a pinned source must not be named by path too');
  });
});
