// The mistakes the generated types catch, each with the diagnostic tsc gives.

// A tool the server does not have.
await tools.mcp_call({
  server: 'everything',
  // @expect TS2322 "no-such-tool" "echo" "get-sum"
  tool: 'no-such-tool',
  arguments: {},
});
// A near miss gets a suggestion.
// @expect TS2820 "ech" "Did you mean"
await tools.mcp_call({ server: 'everything', tool: 'ech', arguments: { message: 'hi' } });

// A server that is not configured (or was down when the types were generated).
await tools.mcp_call({
  // @expect TS2322 "nope" "everything" "files" "memory"
  server: 'nope',
  tool: 'echo',
  arguments: { message: 'hi' },
});
await tools.mcp_call({
  // @expect TS2322 "broken"
  server: 'broken',
  tool: 'echo',
  arguments: { message: 'hi' },
});

// A missing required argument.
await tools.mcp_call({
  server: 'everything',
  tool: 'get-sum',
  // @expect TS2741 "'b'" "is missing"
  arguments: { a: 1 },
});
// `arguments` left out although the tool requires some.
// @expect TS2345 "arguments" "is missing"
await tools.mcp_call({ server: 'everything', tool: 'echo' });

// An argument of the wrong type.
await tools.mcp_call({
  server: 'everything',
  tool: 'echo',
  // @expect TS2322 "number" "string"
  arguments: { message: 42 },
});
// A value outside an enum.
await tools.mcp_call({
  server: 'everything',
  tool: 'get-structured-content',
  // @expect TS2322 "Paris"
  arguments: { location: 'Paris' },
});
// A misspelt argument name, and one the tool does not have.
await tools.mcp_call({
  server: 'files',
  tool: 'list_directory',
  // @expect TS2561 "pth" "path"
  arguments: { pth: '.' },
});
await tools.mcp_call({
  server: 'files',
  tool: 'list_directory',
  // @expect TS2353 "recursive"
  arguments: { path: '.', recursive: true },
});
// Nested arguments are checked too.
await tools.mcp_call({
  server: 'memory',
  tool: 'create_relations',
  // @expect TS2741 "relationType"
  arguments: { relations: [{ from: 'a', to: 'b' }] },
});

// structuredContent has the output schema's type.
const weather = await tools.mcp_call({ server: 'everything', tool: 'get-structured-content', arguments: { location: 'Chicago' } });
// @expect TS2551 "temprature" "temperature"
text(weather.structuredContent?.temprature);
// @expect TS2322 "number" "string"
const wrong: string | undefined = weather.structuredContent?.temperature;

// mcp_describe and mcp_list take the same names.
// @expect TS2769 "no-such-tool"
await tools.mcp_describe({ server: 'everything', tool: 'no-such-tool' });
// @expect TS2769 "nope"
await tools.mcp_describe({ server: 'nope' });
// @expect TS2322 "nope"
await tools.mcp_list({ server: 'nope' });

// A request variable without `as const` has plain string names: not accepted.
const loose = { server: 'everything', tool: 'echo', arguments: { message: 'x' } };
// @expect TS2345 "string"
await tools.mcp_call(loose);

// Prompts are typed too: names and required arguments.
// @expect TS2322 "no-such-prompt" "args-prompt"
await tools.mcp_prompt({ server: 'everything', name: 'no-such-prompt' });
// @expect TS2741 "city"
await tools.mcp_prompt({ server: 'everything', name: 'args-prompt', arguments: { state: 'CA' } });
