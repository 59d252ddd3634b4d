import assert from 'node:assert/strict';
import { DEFAULT_CONFIG_PATH, resolveConfigPath } from '../../src/config/index.js';

describe('config/config-path', () => {
  const cwd = '/work/project';
  const home = '/home/u';

  it('defaults to ~/.config/berry/mcp.json on the machine', () => {
    assert.equal(DEFAULT_CONFIG_PATH, '~/.config/berry/mcp.json');
    assert.equal(resolveConfigPath(undefined, cwd, home), '/home/u/.config/berry/mcp.json');
    assert.equal(resolveConfigPath('', cwd, home), '/home/u/.config/berry/mcp.json');
  });

  it('expands ~ and ~/ to home', () => {
    assert.equal(resolveConfigPath('~', cwd, home), '/home/u');
    assert.equal(resolveConfigPath('~/a/b.json', cwd, home), '/home/u/a/b.json');
    assert.equal(resolveConfigPath('~/../v/x.json', cwd, '/home/u/'), '/home/v/x.json');
  });

  it('resolves relative paths against cwd with POSIX rules', () => {
    assert.equal(resolveConfigPath('mcp.json', cwd, home), '/work/project/mcp.json');
    assert.equal(resolveConfigPath('./cfg/../mcp.json', cwd, home), '/work/project/mcp.json');
    assert.equal(resolveConfigPath('../x.json', cwd, home), '/work/x.json');
    assert.equal(resolveConfigPath('~other/x.json', cwd, home), '/work/project/~other/x.json');
    assert.equal(resolveConfigPath('a\\b.json', cwd, home), '/work/project/a\\b.json');
  });

  it('keeps absolute paths, normalized', () => {
    assert.equal(resolveConfigPath('/etc//berry/./mcp.json', cwd, home), '/etc/berry/mcp.json');
  });

  it('refuses a relative cwd or home instead of using the local process directory', () => {
    assert.throws(() => resolveConfigPath('x.json', 'rel', home), { name: 'TypeError', message: /^The working directory must be an absolute path, got "rel"/ });
    assert.throws(() => resolveConfigPath('~/x.json', cwd, 'rel'), { name: 'TypeError', message: /^The home directory must be an absolute path, got "rel"/ });
  });
});
