/**
 * `serve --confirm-writes`: before a run's call to a tool that may write, the run's own client is
 * asked (an elicitation with one yes/no field). A client that cannot be asked gets every such call
 * refused: the model sees MCP_CALL_REFUSED with the reason, nothing reaches the server.
 */
import type { ApproveCall } from '../bindings/operations/approval/approval.js';
import { showApproval } from '../bindings/operations/approval/approval-view.js';
import type { ElicitationTarget } from './elicitation.js';

/**
 * The longest approval message sent: what clients show in a dialog without cutting it. A call
 * whose arguments need more is refused without asking.
 */
export const ELICITATION_APPROVAL_MAX_CHARS = 4000;
/** The message's own words around the view. */
const FRAME_CHARS = 'Allow ? It may write.\n'.length;

export function approveThrough(target: ElicitationTarget, fallback: AbortSignal): ApproveCall {
  return async (request, { signal }) => {
    if (!target.modes.has('form')) {
      return { approved: false, reason: 'serve --confirm-writes asks the user through elicitation, which this client did not declare' };
    }
    const view = showApproval(request, ELICITATION_APPROVAL_MAX_CHARS - FRAME_CHARS);
    if (!view.ok) return { approved: false, reason: view.reason };
    const answer = await target.ask(
      {
        message: `Allow ${view.title}? It may write.\n${view.body}`,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Allow this call', default: false } },
          required: ['approve'],
        },
      },
      signal ?? fallback,
    );
    if (answer.action === 'accept' && answer.content?.['approve'] === true) return true;
    return { approved: false, reason: answer.action === 'accept' ? 'the user did not allow it' : `the user chose ${answer.action}` };
  };
}
