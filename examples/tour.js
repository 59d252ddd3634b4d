// A tour of the script API, run by `npm run demo` as `berry-mcp run examples/tour.js`.
// The script is the body of an async function: top-level await works, `return` sets the result.

const listed = await tools.mcp_list({});
for (const server of listed.servers) {
  text(`${server.name}: ${server.status}${server.status === "connected" ? ` (${server.tools.length} tools)` : ""}`);
}

const sum = await tools.mcp_describe({ server: "everything", tool: "get-sum" });
console.log(`get-sum takes ${sum.arguments}`);

// Beyond tools: resources and prompts.
const doc = await tools.mcp_read({ server: "everything", uri: "demo://resource/static/document/features.md" });
text(`features.md starts with: ${doc.contents[0].text.split("\n")[0]}`);
const prompt = await tools.mcp_prompt({ server: "everything", name: "args-prompt", arguments: { city: "Paris" } });
text(`args-prompt says: ${prompt.messages[0].content.text}`);

// Calls are truly concurrent: these run in parallel on the host.
const [echo, total, files] = await Promise.all([
  tools.mcp_call({ server: "everything", tool: "echo", arguments: { message: "hello from the sandbox" } }),
  tools.mcp_call({ server: "everything", tool: "get-sum", arguments: { a: 19, b: 23 } }),
  tools.mcp_call({ server: "files", tool: "list_directory", arguments: { path: "." } }),
]);
text(echo.content[0].text);
text(total.content[0].text);
text(`examples/ holds ${files.content[0].text.split("\n").length} entries`);

const picture = await tools.mcp_call({ server: "everything", tool: "get-tiny-image", arguments: {} });
for (const block of picture.content) if (block.type === "image") image(block);

try {
  await tools.mcp_call({ server: "nope", tool: "x", arguments: {} });
} catch (error) {
  text(`errors carry a stable code: ${error.code}`);
}

return { sum: total.content[0].text };
