/** SFTP's status codes as Node's, and the whole-file read the config reread uses. */
import type { SFTPWrapper } from 'ssh2';

const SFTP_ERROR_CODES: Readonly<Record<number, string>> = { 2: 'ENOENT', 3: 'EACCES', 4: 'EIO', 8: 'ENOTSUP' };
const SFTP_READ_CHUNK = 32 * 1024;

/** An SFTP failure as a Node-style error: `code` (ENOENT, EACCES, …) and `path`. */
export function fileError(error: Error, action: string, path: string, identity: string, code?: string): Error {
  const status = (error as Error & { code?: unknown }).code;
  const mapped = code ?? (typeof status === 'number' ? (SFTP_ERROR_CODES[status] ?? 'EIO') : String(status ?? 'EIO'));
  return Object.assign(new Error(`Cannot ${action} ${path} on ${identity}: ${error.message}`), { code: mapped, path });
}

// The config is reread on every operation: open + read is two round trips, where ssh2's
// readFile takes four (open, fstat, read, close). The close is not waited for.
export function sftpReadWhole(sftp: SFTPWrapper, identity: string, path: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => {
      const failure = fileError(error, 'read', path, identity);
      if ((failure as NodeJS.ErrnoException).code === 'ENOENT') resolve(undefined);
      else reject(failure);
    };
    sftp.open(path, 'r', (openError, handle) => {
      if (openError) return fail(openError);
      const chunks: Buffer[] = [];
      let position = 0;
      const finish = (error?: Error): void => {
        sftp.close(handle, () => {});
        if (error) fail(error);
        else resolve(Buffer.concat(chunks).toString('utf8'));
      };
      const next = (): void => {
        const buffer = Buffer.allocUnsafe(SFTP_READ_CHUNK);
        sftp.read(handle, buffer, 0, SFTP_READ_CHUNK, position, (error, bytesRead) => {
          if (error) return finish(error);
          chunks.push(buffer.subarray(0, bytesRead));
          position += bytesRead;
          // A regular file gives a short read only at its end: no round trip to read the EOF.
          if (bytesRead < SFTP_READ_CHUNK) return finish();
          next();
        });
      };
      next();
    });
  });
}
