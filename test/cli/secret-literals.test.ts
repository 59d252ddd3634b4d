import assert from 'node:assert/strict';
import { secretLiteralWarnings } from '../../src/cli/secret-literals.js';

const SECRET = 'sk-live-9f8e7d6c5b4a3f2e1d0c';

describe('cli/secret-literals: secrets typed into add as literals', () => {
  it('warns for env values named like secrets, credential headers, token-looking values, URL and argument secrets', () => {
    const cases: [Parameters<typeof secretLiteralWarnings>[0], RegExp][] = [
      [{ server: 'gh', env: { GITHUB_TOKEN: 'abc' } }, /--env GITHUB_TOKEN .* write \$\{GITHUB_TOKEN\} instead/],
      [{ server: 'x', env: { apiKey: 'abc' } }, /--env apiKey .*\$\{X_APIKEY\}/],
      [{ server: 'x', env: { DB_PASSWORD: 'hunter2' } }, /--env DB_PASSWORD/],
      [{ server: 'x', env: { SOMETHING: 'AbCdEf0123456789GhIjKlMn' } }, /--env SOMETHING/],
      [{ server: 'x', env: { SOMETHING: 'ghp_abcdefghijklmnopqrstuvwxyz012345' } }, /--env SOMETHING/],
      [{ server: 'docs', headers: { Authorization: 'Bearer abc123' } }, /header Authorization .*\$\{DOCS_TOKEN\}/],
      [{ server: 'docs', headers: { 'X-Api-Key': 'k' } }, /header X-Api-Key .*\$\{DOCS_X_API_KEY\}/],
      [{ server: 'docs', headers: { 'X-Custom': 'Basic dXNlcjpwYXNz' } }, /header X-Custom/],
      [{ server: 'docs', url: 'https://h/mcp?api_key=abc123' }, /URL's query parameter api_key/],
      [{ server: 'docs', url: 'https://user:pw@h/mcp' }, /URL's password/],
      [{ server: 'fs', args: ['--token', 'abc'] }, /argument after --token/],
      [{ server: 'fs', args: ['--api-key=abc'] }, /argument --api-key=…/],
    ];
    for (const [sources, expected] of cases) {
      const warnings = secretLiteralWarnings(sources);
      assert.equal(warnings.length, 1, JSON.stringify(sources));
      assert.match(warnings[0]!, expected);
    }
  });

  it('never repeats the value', () => {
    const warnings = secretLiteralWarnings({
      server: 's',
      env: { TOKEN: SECRET },
      headers: { Authorization: `Bearer ${SECRET}` },
      url: `https://u:${SECRET}@h/mcp?token=${SECRET}`,
      args: ['--password', SECRET, `--secret=${SECRET}`],
    });
    assert.equal(warnings.length, 6);
    for (const warning of warnings) assert.ok(!warning.includes(SECRET) && !warning.includes('sk-live'), warning);
  });

  it('stays quiet for ${VAR} values, empty values and ordinary settings', () => {
    assert.deepEqual(
      secretLiteralWarnings({
        server: 's',
        env: {
          API_TOKEN: '${API_TOKEN}',
          GITHUB_TOKEN: 'prefix-${T}',
          EMPTY_KEY: '',
          NODE_OPTIONS: '--max-old-space-size=4096',
          MEMORY_FILE_PATH: '/srv/memory/AbCdEf0123456789GhIjKl.json',
          PWD: '/x',
          KEYBOARD_LAYOUT: 'us',
        },
        headers: { Authorization: 'Bearer ${DOCS_TOKEN}', Accept: 'application/json', 'X-Request-Id': '42' },
        url: 'https://h/mcp?page=2&token=${T}',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/my docs', '--token', '${T}', '--port=3000'],
      }),
      [],
    );
  });
});
