/// <reference types="berry-mcp/script" />
// Without generated server types every server and tool name is accepted, and results have the
// full MCP shape.
const listed = await tools.mcp_list({});
for (const server of listed.servers) {
  if (server.status === 'connected') text(server.tools.map((tool) => `${tool.name}: ${tool.description}`).join('\n'));
  else if (server.status === 'error') text(`${server.name}: ${server.error.code} ${server.error.message}`);
  else text(`${server.name} (${server.transport}) is disabled`);
}
const one: BerryMcp.ListResult = await tools.mcp_list({ server: 'docs' });
await tools.mcp_list();
text(one.configPath);

const result = await tools.mcp_call({ server: 'docs', tool: 'search', arguments: { query: 'auth', limit: 3 } });
const noArguments: BerryMcp.CallResult = await tools.mcp_call({ server: 'docs', tool: 'ping' });
if (result.isError || noArguments.isError) console.warn('a call failed');
for (const block of result.content) {
  switch (block.type) {
    case 'text':
      text(block.text);
      break;
    case 'image':
      image(block);
      break;
    case 'audio':
      text(`${block.mimeType}, ${block.data.length} base64 characters`);
      break;
    case 'resource_link':
      text(`${block.name}: ${block.uri} ${block.size ?? '?'} bytes`);
      break;
    case 'resource':
      text('text' in block.resource ? block.resource.text : block.resource.blob);
      break;
  }
}
const structured: unknown = result.structuredContent;
const token: string | number | undefined = result._meta?.progressToken;
text({ structured, token });

const tool = await tools.mcp_describe({ server: 'docs', tool: 'search' });
const args: string = tool.arguments;
text(args);
text(tool.annotations?.readOnlyHint);
const raw = await tools.mcp_describe({ server: 'docs', tool: 'search', schemas: true });
const schema: BerryMcp.ObjectSchema | undefined = raw.inputSchema;
text(schema?.required ?? []);
const catalog = await tools.mcp_describe({ server: 'docs' });
text(Object.keys(catalog.tools));
text(Object.entries(catalog.resources).map(([uri, line]) => `${uri} ${line}`));
const doc = await tools.mcp_read({ server: 'docs', uri: 'docs://readme' });
for (const c of doc.contents) text('text' in c ? c.text : c.blob.length);
const prompt = await tools.mcp_prompt({ server: 'docs', name: 'summarize', arguments: { topic: 'auth', depth: 2 } });
for (const m of prompt.messages) text(`${m.role}: ${m.content.type}`);
text(catalog.instructions ?? 'no instructions');
const request: BerryMcp.DescribeRequest = { server: 'docs' };
const either: BerryMcp.DescribeResult = await tools.mcp_describe(request);
text('tools' in either ? Object.keys(either.tools).length : either.name);
const callRequest: BerryMcp.CallRequest = { server: 'docs', tool: 'search', arguments: {} };
await tools.mcp_call(callRequest);

try {
  await tools.mcp_call({ server: 'slow', tool: 'wait' });
} catch (error) {
  const code: BerryMcp.ErrorCode | undefined = (error as BerryMcp.ScriptError).code;
  if (code === 'MCP_TIMEOUT') console.error('timed out');
  // @expect TS2367 MCP_TIMEOUTT
  if (code === 'MCP_TIMEOUTT') console.error('never');
}
const found = await tools.mcp_search({ query: 'read a file', server: 'docs', limit: 3 });
for (const hit of found.tools) text(`${hit.server}/${hit.name}${hit.signature} — ${hit.description} ${hit.title ?? ''}`);
const searched: BerryMcp.SearchResult = await tools.mcp_search({ query: 'anything' });
text(searched.tools.length);
// @expect TS2345 query
await tools.mcp_search({ server: 'docs' });
store('seen', found.tools.length);
store('seen', undefined);
const seen = load('seen') as number | undefined;
text(seen ?? 0);
// @expect TS2554
store('only a key');
console.log('log');
console.info('info');
console.debug('debug');

// A script has no Node, no DOM, and a small console.
// @expect TS2580|TS2591 process
process.exit(1);
// @expect TS2339 table
console.table([]);
// @expect TS2304|TS2584 document
document.title = 'x';

// image() takes image blocks only; their type may be left out.
image({ data: 'iVBORw0KGgo=', mimeType: 'image/png' });
// @expect TS2322 "\"text\"" "\"image\""
image({ type: 'text', text: 'not an image' });
for (const block of result.content) {
  // @expect TS2367 video
  if (block.type === 'video') text('no such block');
  // @expect TS2345 TextContent ImageInput
  image(block);
}
// @expect TS2554
text();
