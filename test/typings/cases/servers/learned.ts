// Result types observed from earlier calls (test/typings/fixtures/observed-tools.ts): a tool
// without outputSchema gets its structuredContent typed as observed; JSON text gets a named type.
const graph = await tools.mcp_call({ server: 'learned', tool: 'read_graph' });
const firstName: string | undefined = graph.structuredContent?.entities[0]?.name;
const cursor: string | undefined = graph.structuredContent?.cursor;
text({ firstName, cursor });
// @expect TS2339 "nope"
graph.structuredContent?.entities[0]?.nope;
// @expect TS2322 "number"
const wrong: number | undefined = graph.structuredContent?.relations[0]?.from;
text(wrong);

const search = await tools.mcp_call({ server: 'learned', tool: 'search_text' });
const block = search.content[0];
if (block?.type === 'text') {
  const hits = JSON.parse(block.text) as BerryMcp.Generated.Learned.SearchText.Observed.Returns;
  const score: number | undefined = hits.hits[0]?.score;
  text(score);
}

// A declared outputSchema keeps its declared type: the observed `extra` is not there.
const declared = await tools.mcp_call({ server: 'learned', tool: 'declared' });
const count: number | undefined = declared.structuredContent?.count;
text(count);
// @expect TS2339 "extra"
declared.structuredContent?.extra;
