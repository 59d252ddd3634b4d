/// <reference types="berry-mcp/script" />
// A plain JavaScript script, checked with --allowJs --checkJs: top-level await, JSDoc types from
// the BerryMcp namespace, and top-level names that do not clash with other scripts'.
const result = await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'hi' } });

/** @param {BerryMcp.ContentBlock} block */
function describeBlock(block) {
  return block.type === 'text' ? block.text : block.type;
}
text(result.content.map(describeBlock).join('\n'));

/** @type {BerryMcp.ServerStatus[]} */
const down = (await tools.mcp_list({})).servers.filter((server) => server.status === 'error');
text(down.map((server) => server.name));

// @expect TS2339|TS2551 contents
text(result.contents);
// @expect TS2769 number
text((await tools.mcp_describe({ server: 'everything', tool: 123 })).name);

// A top-level `return` is fine for the sandbox (the script is a function body), but tsc
// rejects it in a file: typed scripts report through text() instead.
// @expect TS1108
return result;
