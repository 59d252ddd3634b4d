// Correct calls against the generated types of the reference servers: they compile, and the
// results carry each tool's structuredContent type.
const echo = await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'hello' } });
for (const block of echo.content) if (block.type === 'text') text(block.text);

const sum = await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 2, b: 40 } });
text(sum.isError ? 'failed' : sum.content);

// Tools whose arguments are all optional take no `arguments`, or an empty object.
await tools.mcp_call({ server: 'everything', tool: 'get-tiny-image' });
await tools.mcp_call({ server: 'everything', tool: 'get-tiny-image', arguments: {} });
await tools.mcp_call({ server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } });
await tools.mcp_call({ server: 'everything', tool: 'gzip-file-as-resource', arguments: { outputType: 'resourceLink' } });

const weather = await tools.mcp_call({ server: 'everything', tool: 'get-structured-content', arguments: { location: 'Chicago' } });
const celsius: number | undefined = weather.structuredContent?.temperature;
const conditions: string | undefined = weather.structuredContent?.conditions;
text({ celsius, conditions });

const listing = await tools.mcp_call({ server: 'files', tool: 'list_directory', arguments: { path: '.' } });
const listingText: string | undefined = listing.structuredContent?.content;
text(listingText);
await tools.mcp_call({
  server: 'files',
  tool: 'edit_file',
  arguments: { path: 'notes.md', edits: [{ oldText: 'a', newText: 'b' }], dryRun: true },
});
await tools.mcp_call({ server: 'files', tool: 'read_multiple_files', arguments: { paths: ['a', 'b'] } });

const created = await tools.mcp_call({
  server: 'memory',
  tool: 'create_entities',
  arguments: { entities: [{ name: 'berry', entityType: 'project', observations: ['typed'] }] },
});
const names: string[] | undefined = created.structuredContent?.entities.map((entity) => entity.name);
text(names);
const graph = await tools.mcp_call({ server: 'memory', tool: 'read_graph' });
text(graph.structuredContent?.relations.map((relation) => `${relation.from} -> ${relation.to}`));

// A request built first needs `as const` so the names stay literal.
const request = { server: 'everything', tool: 'echo', arguments: { message: 'prepared' } } as const;
await tools.mcp_call(request);

// Describe and list take the same names.
const described = await tools.mcp_describe({ server: 'everything', tool: 'get-sum' });
text(described.arguments);
const catalog = await tools.mcp_describe({ server: 'files' });
text(Object.keys(catalog.tools));
await tools.mcp_list({ server: 'memory' });
await tools.mcp_list({});

// Prompts and resources.
const prompt = await tools.mcp_prompt({ server: 'everything', name: 'args-prompt', arguments: { city: 'Paris' } });
text(prompt.messages.length);
await tools.mcp_prompt({ server: 'everything', name: 'simple-prompt' });
const doc = await tools.mcp_read({ server: 'everything', uri: 'demo://resource/static/document/features.md' });
text(doc.contents.length);
