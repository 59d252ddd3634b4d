// The approval hook: asked before every call to a tool without readOnlyHint: true; a refusal
// rejects MCP_CALL_REFUSED and nothing reaches the server.
import assert from 'node:assert/strict';
import type { ApprovalRequest } from '../../src/bindings/operations/approval/approval.js';
import type { ServerDescription } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('approval hook', function () {
  this.timeout(60_000);
  const asked: ApprovalRequest[] = [];
  let answer: (request: ApprovalRequest) => Promise<boolean | { approved: boolean; reason?: string }> = async () => true;

  const t = useTestHost(
    {
      everything: { command: process.execPath, args: [everythingPath] },
      fault: faultEntry(),
    },
    {
      options: {
        approveCall: (request) => {
          asked.push(request);
          return answer(request);
        },
      },
    },
  );

  const refused =
    (pattern: RegExp) =>
    (error: unknown): boolean => {
      assert.ok(isBerryError(error) && error.code === 'MCP_CALL_REFUSED', String(error));
      assert.match(error.message, pattern);
      return true;
    };

  it('does not ask for a readOnlyHint tool', async () => {
    asked.length = 0;
    await t.host.call({ server: 'everything', tool: 'echo', arguments: { message: 'hi' } });
    assert.equal(asked.length, 0);
  });

  it('asks for a tool with annotations missing or not read-only, with its arguments and annotations', async () => {
    asked.length = 0;
    await t.host.call({ server: 'fault', tool: 'echo', arguments: { text: 'ok' } });
    await t.host.call({ server: 'everything', tool: 'toggle-simulated-logging' });
    assert.deepEqual(asked[0], { server: 'fault', tool: 'echo', arguments: { text: 'ok' } });
    assert.equal(asked[1]?.tool, 'toggle-simulated-logging');
  });

  it('refuses with MCP_CALL_REFUSED and sends nothing', async () => {
    answer = async () => false;
    await assert.rejects(
      t.host.call({ server: 'fault', tool: 'add_tool', arguments: { name: 'sneaky' } }),
      refused(/was refused: the approval hook refused it\. Nothing was sent/),
    );
    answer = async () => ({ approved: false, reason: 'writes are off today' });
    await assert.rejects(t.host.call({ server: 'fault', tool: 'add_tool', arguments: { name: 'sneaky' } }), refused(/refused: writes are off today/));
    answer = async () => {
      throw new Error('no terminal');
    };
    await assert.rejects(
      t.host.call({ server: 'fault', tool: 'add_tool', arguments: { name: 'sneaky' } }),
      refused(/the approval hook failed \(no terminal\)/),
    );
    answer = async () => true;
    const described = (await t.host.describe({ server: 'fault' })) as ServerDescription;
    assert.equal(described.tools['sneaky'], undefined);
  });

  it('reaches scripts as an error with code MCP_CALL_REFUSED', async () => {
    answer = async () => false;
    const record = await t.host.run(`try { await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "x" } }); } catch (e) { text(e.code); }`);
    answer = async () => true;
    assert.deepEqual(record.outputs, [{ type: 'text', text: 'MCP_CALL_REFUSED' }]);
  });

  it('gives up waiting for a hook that never answers when the caller aborts', async () => {
    let reached!: () => void;
    const hookAsked = new Promise<void>((resolve) => (reached = resolve));
    answer = () => {
      reached();
      return new Promise(() => {});
    };
    const ac = new AbortController();
    const call = t.host.call({ server: 'fault', tool: 'echo', arguments: { text: 'x' } }, { signal: ac.signal });
    await hookAsked;
    ac.abort();
    await assert.rejects(call, (error: unknown) => isBerryError(error) && error.code === 'MCP_CANCELLED');
    answer = async () => true;
  });
});
