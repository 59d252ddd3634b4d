/**
 * The approval hook: asked before every call to a tool that does not declare `readOnlyHint: true`
 * (missing annotations count as "may write"). A refusal rejects MCP_CALL_REFUSED and nothing is sent.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { BerryError, CancelledError, isBerryError } from '../../../common/errors.js';
import { abortable } from '../../../common/abort.js';

export interface ApprovalRequest {
  readonly server: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The tool's annotations as the server listed them (absent when it gave none). */
  readonly annotations?: Tool['annotations'];
}

/** `true` approves; `false` or `{ approved: false, reason }` refuses. */
export type ApprovalAnswer = boolean | { readonly approved: boolean; readonly reason?: string };

export type ApproveCall = (request: ApprovalRequest, context: { readonly signal?: AbortSignal }) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** True when the hook must be asked: the tool may write. */
export function needsApproval(tool: Tool): boolean {
  return tool.annotations?.readOnlyHint !== true;
}

/** Asks the hook (when there is one and the tool may write); throws MCP_CALL_REFUSED on refusal. */
export async function checkApproval(
  approve: ApproveCall | undefined,
  server: string,
  tool: Tool,
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!approve || !needsApproval(tool)) return;
  const request: ApprovalRequest = {
    server,
    tool: tool.name,
    arguments: args,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
  let answer: ApprovalAnswer;
  try {
    answer = await untilAborted(Promise.resolve(approve(request, signal ? { signal } : {})), signal, server, tool.name);
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (signal?.aborted && isBerryError(signal.reason)) throw signal.reason;
    const message = error instanceof Error ? error.message : String(error);
    throw refused(server, tool.name, `the approval hook failed (${message})`);
  }
  const approved = typeof answer === 'boolean' ? answer : answer?.approved === true;
  if (approved) return;
  const reason =
    typeof answer === 'object' && answer !== null && typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : 'the approval hook refused it';
  throw refused(server, tool.name, reason);
}

/** A hook that ignores the signal must not hold the caller past its abort. */
function untilAborted<T>(answer: Promise<T>, signal: AbortSignal | undefined, server: string, tool: string): Promise<T> {
  const cancelled = (): Error =>
    isBerryError(signal?.reason) ? signal.reason : new CancelledError(`Call of "${tool}" on server "${server}" was cancelled while awaiting approval.`);
  return abortable(answer, signal, undefined, cancelled);
}

function refused(server: string, tool: string, reason: string): BerryError {
  return new BerryError(
    'MCP_CALL_REFUSED',
    `Call of "${tool}" on server "${server}" was refused: ${reason}. Nothing was sent to the server; do not retry it unchanged.`,
  );
}
