/// <reference types="berry-mcp/script" />
// A berry-mcp script that an editor (or tsc) type-checks against the demo servers of
// examples/mcp.json. Run it:
//
//     berry-mcp run examples/typed-script.js --config examples/mcp.json
//
// Type-check it (in a project where berry-mcp is installed, so `berry-mcp/script` resolves):
// write the server types once, then check the script together with them.
//
//     berry-mcp typings --config examples/mcp.json -o berry-mcp.servers.d.ts
//     tsc --noEmit --allowJs --checkJs --strict --target es2022 --module preserve \
//         --moduleDetection force --lib es2023 typed-script.js berry-mcp.servers.d.ts
//
// With those types, a wrong server or tool name, a missing or mistyped argument, or a misspelt
// field of a structured result is a compile error; without them, the script still checks
// against the generic API. (test/typings/compile.test.ts checks this file that way.)

const echo = await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'hello from a typed script' } });
for (const block of echo.content) if (block.type === 'text') text(block.text);

const sum = await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 2, b: 40 } });
if (sum.isError) console.warn('get-sum failed');
else text(sum.content);

// The output schema of get-structured-content types structuredContent.
const weather = await tools.mcp_call({
  server: 'everything',
  tool: 'get-structured-content',
  arguments: { location: 'Chicago' },
});
if (weather.structuredContent) {
  const { temperature, conditions, humidity } = weather.structuredContent;
  text(`Chicago: ${temperature} °C, ${conditions}, ${humidity}% humidity`);
}

// Image blocks go straight to the run's outputs.
const tiny = await tools.mcp_call({ server: 'everything', tool: 'get-tiny-image' });
for (const block of tiny.content) if (block.type === 'image') image(block);

const listing = await tools.mcp_call({ server: 'files', tool: 'list_directory', arguments: { path: '.' } });
text(listing.structuredContent?.content ?? listing.content);

const created = await tools.mcp_call({
  server: 'memory',
  tool: 'create_entities',
  arguments: { entities: [{ name: 'berry-mcp', entityType: 'project', observations: ['type-checked scripts'] }] },
});
if (created.isError) console.warn('create_entities failed:', created.content);
const found = await tools.mcp_call({ server: 'memory', tool: 'search_nodes', arguments: { query: 'berry' } });
text((found.structuredContent?.entities ?? []).map((entity) => `${entity.name} (${entity.entityType})`));

const described = await tools.mcp_describe({ server: 'everything', tool: 'get-sum' });
text(`${described.name}: ${described.description ?? ''}`);
