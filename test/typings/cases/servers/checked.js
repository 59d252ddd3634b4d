// The same checks in a plain JavaScript script (checkJs).
const sum = await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 1, b: 2 } });
text(sum.content);

await tools.mcp_call({
  server: 'everything',
  tool: 'get-sum',
  // @expect TS2322 "string" "number"
  arguments: { a: '1', b: 2 },
});
await tools.mcp_call({
  server: 'files',
  // @expect TS2322 "list_dir"
  tool: 'list_dir',
  arguments: { path: '.' },
});
