import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { run } from './run.js';

/** A private network namespace joined to the root namespace by a veth pair on a /30. */
export interface Namespace {
  readonly name: string;
  /** Our end of the veth (root namespace). */
  readonly hostAddress: string;
  /** The namespace's end of the veth: where its sshd listens. */
  readonly address: string;
  /** argv prefix that runs a program inside the namespace (with /etc/netns/NAME/* over /etc). */
  readonly execPrefix: readonly string[];
  destroy(): Promise<void>;
}

/**
 * Creates the namespace. Inside it, `localhost` and `remote-only.test` resolve to its own
 * loopback (/etc/netns/NAME/hosts), which nothing outside can reach. Only the veth /30 carries
 * traffic between the two namespaces; nothing is routed anywhere else.
 */
export async function createNamespace(hostNames: readonly string[]): Promise<Namespace> {
  const tag = randomBytes(3).toString('hex');
  const name = `berry-${tag}`;
  const outer = `bv${tag}a`;
  const inner = `bv${tag}b`;
  const base = `10.251.${randomInt(256)}.${randomInt(64) * 4}`;
  const prefix = base.slice(0, base.lastIndexOf('.') + 1);
  const last = Number(base.slice(base.lastIndexOf('.') + 1));
  const hostAddress = `${prefix}${last + 1}`;
  const address = `${prefix}${last + 2}`;
  const etc = `/etc/netns/${name}`;
  const destroy = async (): Promise<void> => {
    await run('ip', ['netns', 'del', name]).catch(() => {});
    await run('ip', ['link', 'del', outer]).catch(() => {});
    rmSync(etc, { recursive: true, force: true });
  };
  try {
    mkdirSync(etc, { recursive: true });
    writeFileSync(`${etc}/hosts`, `127.0.0.1 localhost ${hostNames.join(' ')}\n::1 localhost\n`);
    // Lookups of other names fail at once instead of leaving the namespace.
    writeFileSync(`${etc}/resolv.conf`, 'nameserver 127.0.0.1\n');
    await run('ip', ['netns', 'add', name]);
    await run('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', inner, 'netns', name]);
    await run('ip', ['addr', 'add', `${hostAddress}/30`, 'dev', outer]);
    await run('ip', ['link', 'set', outer, 'up']);
    await run('ip', ['-n', name, 'addr', 'add', `${address}/30`, 'dev', inner]);
    await run('ip', ['-n', name, 'link', 'set', inner, 'up']);
    await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    await destroy();
    throw error;
  }
  return { name, hostAddress, address, execPrefix: ['ip', 'netns', 'exec', name], destroy };
}
