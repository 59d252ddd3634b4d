/**
 * `--confirm-writes`: the approval hook on the terminal. Each call to a tool that may write shows
 * the tool, its arguments and annotations and asks y/N; not on a terminal, every such call is
 * refused. Questions from concurrent calls are asked one at a time.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ApprovalAnswer, ApproveCall } from '../mcp/operations/approval.js';

const MAX_SHOWN_ARGUMENTS = 2000;

export function terminalApprover(io: {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
}): ApproveCall {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, { signal }) => {
    if (io.stdin.isTTY !== true || io.stderr.isTTY !== true) {
      return { approved: false, reason: '--confirm-writes needs a terminal to ask on, and this is not one' };
    }
    const asked = queue.then(() => ask(io, request, signal));
    queue = asked.catch(() => {});
    return asked;
  };
}

async function ask(
  io: { readonly stdin: Readable; readonly stderr: Writable },
  request: Parameters<ApproveCall>[0],
  signal: AbortSignal | undefined,
): Promise<ApprovalAnswer> {
  let args = JSON.stringify(request.arguments, null, 2);
  if (args.length > MAX_SHOWN_ARGUMENTS) args = `${args.slice(0, MAX_SHOWN_ARGUMENTS)}… (${args.length} characters)`;
  const hints = request.annotations ? JSON.stringify(request.annotations) : 'none (the server did not say it only reads)';
  io.stderr.write(`\nberry-mcp: ${request.server}/${request.tool} may write.\n  arguments: ${args.replace(/\n/g, '\n  ')}\n  annotations: ${hints}\n`);
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
