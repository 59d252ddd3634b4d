/**
 * `serve --confirm-writes`: before a run's call to a tool that may write, the run's own client is
 * asked (an elicitation with one yes/no field). A client that cannot be asked gets every such call
 * refused: the model sees MCP_CALL_REFUSED with the reason, nothing reaches the server.
 */
import type { ApproveCall } from '../mcp/operations/approval.js';
import { clip } from './description.js';
import type { ElicitationTarget } from './elicitation.js';

const SHOWN_ARGUMENTS = 500;

export function approveThrough(target: ElicitationTarget, fallback: AbortSignal): ApproveCall {
  return async (request, { signal }) => {
    if (!target.modes.has('form')) {
      return { approved: false, reason: 'serve --confirm-writes asks the user through elicitation, which this client did not declare' };
    }
    const hints = request.annotations ? ` Annotations: ${JSON.stringify(request.annotations)}.` : ' The server does not say it only reads.';
    const answer = await target.ask(
      {
        message: `Allow ${request.server}/${request.tool}? It may write. Arguments: ${clip(JSON.stringify(request.arguments), SHOWN_ARGUMENTS)}.${hints}`,
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
