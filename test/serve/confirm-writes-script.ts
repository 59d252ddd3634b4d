// The script both --confirm-writes tests run (2025 and 2026): echo on the fault server declares no
// annotations (so it may write, and is asked about); get-sum on server-everything is readOnlyHint.
export const CONFIRM_WRITES_SCRIPT = `const out = [];
    for (const text of ['first', 'second']) {
      try { out.push((await tools.mcp_call({ server: 'fault', tool: 'echo', arguments: { text } })).content[0].text); }
      catch (e) { out.push(e.code + ': ' + e.message); }
    }
    out.push((await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 1, b: 2 } })).content[0].text);
    return out;`;
