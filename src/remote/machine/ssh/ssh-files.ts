/**
 * File writes over SFTP for SshMachine (token files, lock files). SFTP v3 reports most failures
 * as a generic FAILURE, so an "already exists" is confirmed with a stat. An exclusive open is
 * O_CREAT|O_EXCL on OpenSSH's sftp-server, which never follows a symlink.
 */
import type { SFTPWrapper } from 'ssh2';
import type { FileInfo, WriteFileOptions } from '../machine.js';
import type { SshConnection } from './ssh-connection.js';
import { fileError } from './sftp-read.js';

const WRITE_CHUNK = 32 * 1024;

type Callback = (error: Error | undefined | null) => void;

function call(run: (callback: Callback) => void): Promise<Error | undefined> {
  return new Promise((resolve) => run((error) => resolve(error ?? undefined)));
}

function exists(sftp: SFTPWrapper, path: string): Promise<boolean> {
  return new Promise((resolve) => sftp.lstat(path, (error) => resolve(!error)));
}

export async function sftpWriteFile(sftp: SFTPWrapper, identity: string, path: string, data: string, options: WriteFileOptions): Promise<void> {
  const handle = await new Promise<Buffer>((resolve, reject) => {
    sftp.open(path, options.exclusive ? 'wx' : 'w', { mode: options.mode }, (error, h) => {
      if (!error) return resolve(h);
      if (!options.exclusive) return reject(fileError(error, 'write', path, identity));
      void exists(sftp, path).then((found) => reject(fileError(error, 'create', path, identity, found ? 'EEXIST' : undefined)));
    });
  });
  const bytes = Buffer.from(data, 'utf8');
  let failure: Error | undefined;
  for (let offset = 0; offset < bytes.length && !failure; offset += WRITE_CHUNK) {
    const length = Math.min(WRITE_CHUNK, bytes.length - offset);
    failure = await call((cb) => sftp.write(handle, bytes, offset, length, offset, cb));
  }
  const closeError = await call((cb) => sftp.close(handle, cb));
  failure ??= closeError;
  if (failure) throw fileError(failure, 'write', path, identity);
}

export async function sftpRename(sftp: SFTPWrapper, identity: string, from: string, to: string): Promise<void> {
  // Plain SFTP rename refuses an existing target; OpenSSH's posix-rename replaces it atomically.
  const error = await call((cb) => sftp.ext_openssh_rename(from, to, cb));
  if (error) throw fileError(error, 'rename', `${from} to ${to}`, identity);
}

export async function sftpMkdir(sftp: SFTPWrapper, identity: string, path: string, mode: number): Promise<void> {
  const parts = path.split('/').filter(Boolean);
  let current = '';
  let createdLast = false;
  for (const [index, part] of parts.entries()) {
    current += `/${part}`;
    if (await exists(sftp, current)) continue;
    // Like mkdir -p -m: parents and the directory itself get `mode`; existing ones are left alone.
    const error = await call((cb) => sftp.mkdir(current, { mode }, cb));
    if (error && !(await exists(sftp, current))) throw fileError(error, 'create directory', current, identity);
    createdLast = index === parts.length - 1 && !error;
  }
  // The server's umask applies to mkdir: the directory created last gets exactly `mode`.
  if (createdLast) {
    const chmodError = await call((cb) => sftp.chmod(path, mode, cb));
    if (chmodError) throw fileError(chmodError, 'chmod', path, identity);
  }
}

export async function sftpUnlink(sftp: SFTPWrapper, identity: string, path: string): Promise<void> {
  const error = await call((cb) => sftp.unlink(path, cb));
  if (error && (await exists(sftp, path))) throw fileError(error, 'remove', path, identity);
}

export function sftpReadLink(sftp: SFTPWrapper, identity: string, path: string): Promise<string> {
  return new Promise((resolve, reject) =>
    sftp.readlink(path, (error, target) => (error ? reject(fileError(error, 'read the link', path, identity)) : resolve(target))),
  );
}

export function sftpRealPath(sftp: SFTPWrapper, identity: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => sftp.realpath(path, (error, real) => (error ? reject(fileError(error, 'resolve', path, identity)) : resolve(real))));
}

export async function sftpChmod(sftp: SFTPWrapper, identity: string, path: string, mode: number): Promise<void> {
  const error = await call((cb) => sftp.chmod(path, mode, cb));
  if (error) throw fileError(error, 'chmod', path, identity);
}

const S_IFMT = 0o170000;
const FILE_TYPES: Readonly<Record<number, FileInfo['type']>> = { 0o100000: 'file', 0o040000: 'directory', 0o120000: 'symlink' };

export function sftpFileInfo(sftp: SFTPWrapper, identity: string, path: string, followLinks = false): Promise<FileInfo | undefined> {
  return new Promise((resolve, reject) =>
    (followLinks ? sftp.stat : sftp.lstat).call(sftp, path, (error, stats) => {
      if (!error) return resolve({ type: FILE_TYPES[stats.mode & S_IFMT] ?? 'other', uid: stats.uid, mode: stats.mode & 0o7777 });
      const failure = fileError(error, 'stat', path, identity);
      // SFTP v3 says NO_SUCH_FILE for a missing path, also below a file that is not a directory.
      if ((failure as Error & { code?: string }).code === 'ENOENT') resolve(undefined);
      else reject(failure);
    }),
  );
}

// The login's uid, asked once per connection: SFTP has no way to say who we are.
const userIds = new WeakMap<SshConnection, Promise<number>>();

export function remoteUserId(connection: SshConnection, signal?: AbortSignal): Promise<number> {
  let uid = userIds.get(connection);
  if (!uid) {
    uid = connection.run('id -u', signal).then((result) => {
      const value = Number(result.stdout.toString('utf8').trim());
      if (result.code !== 0 || !Number.isInteger(value)) {
        throw Object.assign(new Error(`Cannot tell the user id on ${connection.identity}: \`id -u\` answered ${result.code ?? 'no exit code'}`), {
          code: 'EIO',
        });
      }
      return value;
    });
    userIds.set(connection, uid);
    uid.catch(() => userIds.delete(connection));
  }
  return uid;
}
