import assert from 'node:assert/strict';
import { configuredNames, withoutServer, withServer } from '../../src/config/index.js';
import { isBerryError } from '../../src/common/errors.js';

const FILE = '/home/u/.config/berry/mcp.json';
const ENTRY = { command: 'node', args: ['server.js', '/srv/my docs'], env: { ROOT: '${HOME}/x' } };

/** The text withServer adds must parse back to exactly the entry, and everything else must stay. */
function assertAdded(before: string, after: string, name: string, entry: unknown): void {
  const old = JSON.parse(before.replace(/^\ufeff/, '')) as { mcpServers?: Record<string, unknown> };
  const now = JSON.parse(after.replace(/^\ufeff/, '')) as { mcpServers: Record<string, unknown> };
  assert.deepEqual(now.mcpServers[name], entry);
  assert.deepEqual(Object.keys(now.mcpServers), [...Object.keys(old.mcpServers ?? {}), name]);
  assert.equal(withoutServer(after, FILE, name).length <= after.length, true);
}

describe('config/edit-config: mcp.json edited as text', () => {
  it("appends an entry after the last one in the file's own indentation (2 spaces, 4, tabs), one line when the others are", () => {
    const cases: [string, string][] = [
      [
        '{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n',
        '{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    },\n    "new": {\n      "command": "node",\n      "args": [\n        "server.js",\n        "/srv/my docs"\n      ],\n      "env": {\n        "ROOT": "${HOME}/x"\n      }\n    }\n  }\n}\n',
      ],
      [
        '{\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"url": "https://x/mcp"\n\t\t}\n\t}\n}',
        '{\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"url": "https://x/mcp"\n\t\t},\n\t\t"new": {\n\t\t\t"command": "node",\n\t\t\t"args": [\n\t\t\t\t"server.js",\n\t\t\t\t"/srv/my docs"\n\t\t\t],\n\t\t\t"env": {\n\t\t\t\t"ROOT": "${HOME}/x"\n\t\t\t}\n\t\t}\n\t}\n}',
      ],
      [
        '{\n    "mcpServers": {\n        "a": { "command": "x" },\n        "b": { "url": "https://b/mcp" }\n    }\n}\n',
        '{\n    "mcpServers": {\n        "a": { "command": "x" },\n        "b": { "url": "https://b/mcp" },\n        "new": { "command": "node", "args": ["server.js", "/srv/my docs"], "env": { "ROOT": "${HOME}/x" } }\n    }\n}\n',
      ],
      [
        '{"mcpServers":{"a":{"command":"x"}}}',
        '{"mcpServers":{"a":{"command":"x"}, "new": { "command": "node", "args": ["server.js", "/srv/my docs"], "env": { "ROOT": "${HOME}/x" } }}}',
      ],
    ];
    for (const [before, expected] of cases) {
      const after = withServer(before, FILE, 'new', ENTRY);
      assert.equal(after, expected, before);
      assertAdded(before, after, 'new', ENTRY);
    }
  });

  it('keeps CRLF line endings, a byte-order mark, and whatever follows the object', () => {
    const before = '\ufeff{\r\n  "mcpServers": {\r\n    "a": {\r\n      "command": "x"\r\n    }\r\n  }\r\n}\r\n';
    const after = withServer(before, FILE, 'n', { command: 'y' });
    assert.equal(
      after,
      '\ufeff{\r\n  "mcpServers": {\r\n    "a": {\r\n      "command": "x"\r\n    },\r\n    "n": {\r\n      "command": "y"\r\n    }\r\n  }\r\n}\r\n',
    );
  });

  it('fills an empty mcpServers, adds mcpServers to a file without it, and writes a new file', () => {
    assert.equal(
      withServer('{\n  "mcpServers": {}\n}\n', FILE, 'n', { command: 'y' }),
      '{\n  "mcpServers": {\n    "n": {\n      "command": "y"\n    }\n  }\n}\n',
    );
    assert.equal(withServer('{}', FILE, 'n', { command: 'y' }), '{\n  "mcpServers": {\n    "n": {\n      "command": "y"\n    }\n  }\n}');
    assert.equal(withServer(undefined, FILE, 'n', { command: 'y' }), '{\n  "mcpServers": {\n    "n": {\n      "command": "y"\n    }\n  }\n}\n');
  });

  it('replaces an entry in its place, the others untouched', () => {
    const before = '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "b": { "command": "old", "args": [] },\n    "c": { "command": "z" }\n  }\n}\n';
    assert.equal(
      withServer(before, FILE, 'b', { url: 'https://b/mcp' }),
      '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "b": { "url": "https://b/mcp" },\n    "c": { "command": "z" }\n  }\n}\n',
    );
  });

  it('removes the first, a middle, the last and the only entry, leaving the rest byte for byte', () => {
    const before = '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "b": {\n      "command": "y"\n    },\n    "c": { "command": "z" }\n  }\n}\n';
    assert.equal(withoutServer(before, FILE, 'a'), '{\n  "mcpServers": {\n    "b": {\n      "command": "y"\n    },\n    "c": { "command": "z" }\n  }\n}\n');
    assert.equal(withoutServer(before, FILE, 'b'), '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "c": { "command": "z" }\n  }\n}\n');
    assert.equal(withoutServer(before, FILE, 'c'), '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "b": {\n      "command": "y"\n    }\n  }\n}\n');
    assert.equal(withoutServer('{ "mcpServers": { "only": { "command": "x" } } }', FILE, 'only'), '{ "mcpServers": {} }');
    assert.equal(withoutServer(before, FILE, 'absent'), before);
  });

  it('add then remove gives back the original text exactly', () => {
    const originals = [
      '{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n',
      '{\n    "mcpServers": {\n        "a": { "command": "x" }\n    }\n}',
      '{"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}}\n',
    ];
    for (const original of originals) assert.equal(withoutServer(withServer(original, FILE, 'n', ENTRY), FILE, 'n'), original, original);
  });

  it('names keys as JSON: odd server names are escaped, integer-like ones keep file order', () => {
    const after = withServer('{"mcpServers": {"2": {"command": "x"}, "1": {"command": "y"}}}', FILE, 'a "q"\n', { command: 'z' });
    assert.deepEqual(configuredNames(after, FILE), ['2', '1', 'a "q"\n']);
    assert.deepEqual(configuredNames(undefined, FILE), []);
    assert.deepEqual(configuredNames('{"mcpServers": {"a": {}, "a": {}}}', FILE), ['a', 'a']);
  });

  it('a file list would refuse, or an invalid entry, throws the ConfigError list reports and edits nothing', () => {
    const bad: [string | undefined, unknown, RegExp][] = [
      ['{"mcpServers": {', { command: 'x' }, /Invalid JSON in .* at line 1, column 17/],
      ['// comment\n{}', { command: 'x' }, /Invalid JSON/],
      ['{"mcpServers": {}, "mcpServers": {}}', { command: 'x' }, /Duplicate top-level key "mcpServers"/],
      ['{"servers": {}}', { command: 'x' }, /Unknown top-level key "servers"/],
      ['[]', { command: 'x' }, /must contain a JSON object/],
      [undefined, { command: 'x', url: 'https://x' }, /has both "command" and "url"/],
      [undefined, { url: 'https://x', cwd: '/srv' }, /applies only to stdio servers/],
    ];
    for (const [text, entry, message] of bad) {
      assert.throws(
        () => withServer(text, FILE, 'n', entry),
        (error: unknown) => isBerryError(error) && error.code === 'MCP_CONFIG_INVALID' && message.test(error.message),
        String(text),
      );
    }
    assert.throws(
      () => withoutServer('{"mcpServers": [', FILE, 'a'),
      (error: unknown) => isBerryError(error) && error.code === 'MCP_CONFIG_INVALID',
    );
  });
});
