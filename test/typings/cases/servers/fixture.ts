// The fixture tools (test/typings/fixtures/fixture-tools.ts): every schema feature, hostile names
// and descriptions, name collisions, and schemas over the limits.

// $defs and definitions side by side, recursion through $ref, '#' and an anchor.
await tools.mcp_call({
  server: 'fixture',
  tool: 'refs',
  arguments: {
    tree: { name: 'root', children: [{ name: 'leaf', children: [] }] },
    relation: { from: 'a', to: 'b' },
    self: { tree: { name: 'nested' }, self: { tree: { name: 'deeper' } } },
    anchored: { x: 1, y: 2 },
  },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'refs',
  // @expect TS2741 "'name'"
  arguments: { tree: { children: [] } },
});

// anyOf, oneOf (a discriminated union) and allOf.
await tools.mcp_call({ server: 'fixture', tool: 'compose', arguments: { target: 'x', shape: { kind: 'circle', radius: 1 } } });
await tools.mcp_call({
  server: 'fixture',
  tool: 'compose',
  arguments: { target: { id: 7 }, shape: { kind: 'square', side: 2 }, both: { a: 'a', b: 1 } },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'compose',
  // @expect TS2353 "radius"
  arguments: { target: 'x', shape: { kind: 'square', radius: 1 } },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'compose',
  // @expect TS2322 "'b'" "is missing"
  arguments: { target: 'x', shape: { kind: 'circle', radius: 1 }, both: { a: 'a' } },
});

// enum, const, nullable in both spellings, formats (plain strings).
await tools.mcp_call({
  server: 'fixture',
  tool: 'enums',
  arguments: { mode: 'fast', level: 2, kind: 'fixed', maybe: null, openApiMaybe: null, when: '2026-01-01T00:00:00Z', count: 3 },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'enums',
  // @expect TS2322 "slow"
  arguments: { mode: 'slow', maybe: 'x' },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'enums',
  // @expect TS2322 "4"
  arguments: { mode: 'safe', maybe: 'x', level: 4 },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'enums',
  // @expect TS2322 "loose" "fixed"
  arguments: { mode: 'safe', maybe: 'x', kind: 'loose' },
});

// Tuples: prefixItems (closed and with a rest type) and draft-07 item arrays.
await tools.mcp_call({ server: 'fixture', tool: 'tuples', arguments: { pair: ['a', 1], rest: ['a', true, false], draft7: [1, 2], bounded: ['x'] } });
await tools.mcp_call({
  server: 'fixture',
  tool: 'tuples',
  // @expect TS2322 "number" "string"
  arguments: { pair: [1, 'a'] },
});

// additionalProperties with a schema, open objects, patternProperties.
await tools.mcp_call({
  server: 'fixture',
  tool: 'additional',
  arguments: { counts: { a: 1, b: 2 }, free: { anything: [1] }, open: { known: 'k', extra: true }, byPattern: { 'x-a': 'v' } },
});
await tools.mcp_call({
  server: 'fixture',
  tool: 'additional',
  // @expect TS2322 "string" "number"
  arguments: { counts: { a: 'one' } },
});

// Empty and missing schemas: any arguments, or none.
await tools.mcp_call({ server: 'fixture', tool: 'empty' });
await tools.mcp_call({ server: 'fixture', tool: 'empty', arguments: { anything: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'no-properties', arguments: { anything: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'missing', arguments: { anything: 1 } });

// Names that are no identifiers are used as they are.
await tools.mcp_call({ server: 'fixture', tool: 'weird name/with "quotes" \\ and \u2028 */', arguments: { ok: true } });
await tools.mcp_call({ server: 'fixture', tool: 'delete', arguments: { id: 'x' } });
await tools.mcp_call({ server: 'fixture', tool: 'class', arguments: { name: 'x' } });
await tools.mcp_call({ server: 'fixture', tool: '123start', arguments: { n: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'tool.with.dots', arguments: { d: 'x' } });
await tools.mcp_call({ server: 'fixture', tool: '日本語', arguments: { text: 'x' } });
await tools.mcp_call({ server: 'fixture', tool: 'Record', arguments: { r: 'x' } });
await tools.mcp_call({ server: 'hostile */ "server"\u2028', tool: 'ping' });

// Names that collide once sanitised keep their own argument types.
await tools.mcp_call({ server: 'fixture', tool: 'get-sum', arguments: { x: 'x' } });
await tools.mcp_call({ server: 'fixture', tool: 'get_sum', arguments: { y: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'getSum', arguments: { z: true } });
await tools.mcp_call({
  server: 'fixture',
  tool: 'get_sum',
  // @expect TS2353 "'x'"
  arguments: { y: 1, x: 'x' },
});

// Hostile descriptions, titles, enum values, defaults and tsType stayed comments and strings.
await tools.mcp_call({
  server: 'fixture',
  tool: 'hostile',
  arguments: {
    '*/ declare const pwned: number; /*': 'a string',
    choice: '*/ declare const pwned: number; /*',
    fixed: '\u2028declare const pwned: number;\n*/ declare const pwned: number; /**\r\n// \\',
    injected: 1,
    named: 'a',
    constructor: 1,
  },
});
// @expect TS2304 "pwned"
const leaked: number = pwned;

// A remote $ref is never fetched: the property is unknown, the rest is typed.
await tools.mcp_call({ server: 'fixture', tool: 'remote-ref', arguments: { local: 'x', remote: { anything: true } } });
await tools.mcp_call({
  server: 'fixture',
  tool: 'remote-ref',
  // @expect TS2741 "'local'"
  arguments: { remote: 1 },
});

// Schemas over the limits, or broken, fall back to any arguments.
await tools.mcp_call({ server: 'fixture', tool: 'oversized', arguments: { whatever: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'too-deep', arguments: { whatever: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'ref-bomb', arguments: { whatever: 1 } });
await tools.mcp_call({ server: 'fixture', tool: 'bad-ref', arguments: { whatever: 1 } });

// A root that is a $ref.
await tools.mcp_call({ server: 'fixture', tool: 'root-ref', arguments: { q: 'x' } });

// A recursive output schema.
const out = await tools.mcp_call({ server: 'fixture', tool: 'structured-out', arguments: { query: 'q' } });
const total: number | undefined = out.structuredContent?.total;
const grandchildren: string[] | undefined = out.structuredContent?.items.flatMap((item) => item.children ?? []).map((item) => item.id);
text({ total, grandchildren });
