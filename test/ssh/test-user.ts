import { homedir, userInfo } from 'node:os';
import { run } from './run.js';

export const TEST_USER = 'berrytest';

export interface TestUser {
  readonly username: string;
  readonly homeDir: string;
  readonly uid: number;
}

/**
 * As root: the unprivileged user the tests log in as, created if missing, with `/bin/sh` as
 * its shell (no startup files for ssh commands) and password field `*` (a locked `!` account
 * cannot log in with UsePAM no). Otherwise: the current user.
 */
export async function ensureTestUser(needsToRead: readonly string[]): Promise<TestUser> {
  if (process.getuid?.() !== 0) {
    const me = userInfo();
    return { username: me.username, homeDir: homedir(), uid: me.uid };
  }
  const exists = await run('id', ['-u', TEST_USER]).then(
    () => true,
    () => false,
  );
  if (!exists) await run('useradd', ['-m', '-s', '/bin/sh', TEST_USER]);
  await run('usermod', ['-p', '*', '-s', '/bin/sh', TEST_USER]);
  const [uid, home] = (await run('getent', ['passwd', TEST_USER]))
    .trim()
    .split(':')
    .filter((_, i) => i === 2 || i === 5);
  const asUser = (script: string): Promise<string> => run('runuser', ['-u', TEST_USER, '--', 'sh', '-c', script]);
  const node = await asUser('command -v node').catch(() => '');
  if (!node.trim()) throw new Error(`The test user ${TEST_USER} cannot find node on its PATH; install node in /usr/bin or /usr/local/bin`);
  for (const path of needsToRead) {
    await asUser(`test -r '${path}'`).catch(() => {
      throw new Error(`The test user ${TEST_USER} cannot read ${path}: make the checkout world-readable (chmod -R o+rX)`);
    });
  }
  return { username: TEST_USER, homeDir: home ?? `/home/${TEST_USER}`, uid: Number(uid) };
}
