/**
 * `--confirm-writes`: the approval hook on the terminal. Each call to a tool that may write shows
 * the tool, every argument (see approval-view.ts) and its annotations and asks y/N; not on a
 * terminal, or when it cannot all be shown, every such call is refused. Questions from concurrent
 * calls are asked one at a time.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ApprovalAnswer, ApproveCall } from '../bindings/operations/approval/approval.js';
import { showApproval } from '../bindings/operations/approval/approval-view.js';
import { terminalSafe } from './output/terminal-safe.js';

/** The most the terminal question shows; a call whose arguments need more is declined unasked. */
export const TERMINAL_APPROVAL_MAX_CHARS = 8000;

export function terminalApprover(io: { readonly stdin: Readable & { isTTY?: boolean }; readonly stderr: Writable & { isTTY?: boolean } }): ApproveCall {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, { signal }) => {
    if (io.stdin.isTTY !== true || io.stderr.isTTY !== true) {
      return { approved: false, reason: '--confirm-writes needs a terminal to ask on, and this is not one' };
    }
    const view = showApproval(request, TERMINAL_APPROVAL_MAX_CHARS);
    if (!view.ok) return { approved: false, reason: view.reason };
    const text = terminalSafe(`\nberry-mcp: ${view.title} may write.\n  ${view.body.replace(/\n/g, '\n  ')}\n`);
    const asked = queue.then(() => ask(io, text, signal));
    queue = asked.catch(() => {});
    return asked;
  };
}

async function ask(io: { readonly stdin: Readable; readonly stderr: Writable }, text: string, signal: AbortSignal | undefined): Promise<ApprovalAnswer> {
  io.stderr.write(text);
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      rl.question('Allow this call? [y/N] ', (line) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      });
      rl.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer) ? true : { approved: false, reason: 'declined at the terminal' };
  } finally {
    rl.close();
  }
}
