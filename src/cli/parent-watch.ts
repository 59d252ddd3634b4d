import type { Socket } from 'node:net';
import { nodeNet } from '../common/lazy-node.js';

/** Names the fd of the parent's watch pipe in a re-executed child's environment. */
export const PARENT_FD_ENV = 'BERRY_MCP_PARENT_FD';

export interface ParentLink {
  /** Tells the parent the exit status to use, in case this process cannot exit normally. */
  reportExitCode(code: number): void;
}

/**
 * In a child re-executed by the bin: calls `onGone` once when the parent process is gone. The
 * parent holds the other end of a socket pair on fd 3; the kernel closes it whatever kills the
 * parent (SIGKILL included), and this end then reads end-of-file. Without the variable, a no-op.
 */
export function watchParent(onGone: () => void): ParentLink {
  const fd = Number(process.env[PARENT_FD_ENV]);
  // Not inherited by the MCP servers this process starts.
  delete process.env[PARENT_FD_ENV];
  const none: ParentLink = { reportExitCode: () => {} };
  if (!Number.isInteger(fd) || fd < 3) return none;
  let socket: Socket;
  try {
    socket = new (nodeNet().Socket)({ fd, readable: true, writable: true });
  } catch {
    return none;
  }
  let gone = false;
  const fire = (): void => {
    if (gone) return;
    gone = true;
    socket.destroy();
    onGone();
  };
  socket.on('data', () => {});
  socket.on('end', fire);
  socket.on('error', fire);
  // Watching must not keep the process alive once its work is done.
  socket.unref();
  return {
    reportExitCode: (code) => {
      if (!gone) socket.write(Buffer.from([code & 0xff]));
    },
  };
}
