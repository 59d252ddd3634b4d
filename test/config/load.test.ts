import assert from 'node:assert/strict';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BerryError, ConfigError } from '../../src/common/errors.js';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../../src/config/index.js';
import { createTempTree, TempMachine, type TempTree } from './temp-machine.js';
import { loadWith, stdioOf } from './load-helpers.js';

describe('config/load', () => {
  let tree: TempTree;
  beforeEach(async () => {
    tree = await createTempTree();
  });
  afterEach(async () => {
    await tree.remove();
  });

  describe('file location', () => {
    it('reads ~/.config/berry/mcp.json by default and treats a missing file as no servers', async () => {
      const machine = new TempMachine(tree.home);
      const loaded = await loadConfig({ machine, cwd: tree.work });
      const expected = join(tree.home, '.config/berry/mcp.json');
      assert.deepEqual(loaded, { path: expected, exists: false, servers: [] });
      assert.deepEqual(machine.reads, [expected]);
      assert.equal(DEFAULT_CONFIG_PATH, '~/.config/berry/mcp.json');
    });

    it('resolves a relative configPath against cwd', async () => {
      await tree.write(join(tree.work, 'conf/mcp.json'), { mcpServers: { a: { command: 'x' } } });
      const machine = new TempMachine(tree.home);
      const loaded = await loadConfig({ machine, cwd: tree.work, configPath: 'conf/../conf/mcp.json' });
      assert.equal(loaded.path, join(tree.work, 'conf/mcp.json'));
      assert.equal(loaded.exists, true);
      assert.deepEqual(
        loaded.servers.map((slot) => slot.name),
        ['a'],
      );
      assert.equal(machine.homeCalls, 0, 'home is not needed for a relative path');
    });

    it('resolves ~/ against the machine home', async () => {
      await tree.write(join(tree.home, 'other.json'), { mcpServers: {} });
      const machine = new TempMachine(tree.home);
      const loaded = await loadConfig({ machine, cwd: tree.work, configPath: '~/other.json' });
      assert.equal(loaded.path, join(tree.home, 'other.json'));
      assert.equal(loaded.exists, true);
    });

    it('uses an absolute configPath as is (normalized) and treats a blank one as the default', async () => {
      const path = await tree.write(join(tree.root, 'abs.json'), {});
      const machine = new TempMachine(tree.home);
      const loaded = await loadConfig({ machine, cwd: tree.work, configPath: `${tree.root}/./x/../abs.json` });
      assert.equal(loaded.path, path);
      const blank = await loadConfig({ machine, cwd: tree.work, configPath: '  ' });
      assert.equal(blank.path, join(tree.home, '.config/berry/mcp.json'));
    });

    it('rejects a relative cwd option with a TypeError', async () => {
      const machine = new TempMachine(tree.home);
      await assert.rejects(loadConfig({ machine, cwd: 'relative/dir' }), {
        name: 'TypeError',
        message: /options\.cwd must be an absolute POSIX path, got "relative\/dir"/,
      });
    });
  });

  describe('read failures', () => {
    it('turns EISDIR into a ConfigError naming the file and what to do', async () => {
      await mkdir(join(tree.work, 'dir.json'));
      const machine = new TempMachine(tree.home);
      const error = await loadConfig({ machine, cwd: tree.work, configPath: 'dir.json' }).then(
        () => assert.fail('expected a rejection'),
        (err: unknown) => err,
      );
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, 'MCP_CONFIG_INVALID');
      assert.equal(error.file, join(tree.work, 'dir.json'));
      assert.match(error.message, /Cannot read the MCP config file .*dir\.json: it is a directory\. Point the config path at the JSON file itself\./);
      assert.equal((error.cause as NodeJS.ErrnoException).code, 'EISDIR');
    });

    it('turns EACCES into a ConfigError', async () => {
      const path = await tree.writeDefault({});
      await chmod(path, 0o000);
      const machine = new TempMachine(tree.home, {}, (p) => {
        // root reads anything: simulate the error the way fs reports it
        if (process.getuid?.() !== 0) return undefined;
        return Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' });
      });
      const error = await loadConfig({ machine, cwd: tree.work }).catch((err: unknown) => err);
      assert.ok(error instanceof ConfigError);
      assert.equal(error.file, path);
      assert.match(error.message, /permission denied\. Make it readable by the user running berry-mcp, or choose another config path\./);
    });

    it('lets a BerryError from the machine through unchanged', async () => {
      const unavailable = new BerryError('MACHINE_UNAVAILABLE', 'ssh down');
      const machine = new TempMachine(tree.home, {}, () => unavailable);
      await assert.rejects(loadConfig({ machine, cwd: tree.work }), (err) => err === unavailable);
    });

    it('rejects with the abort reason when the signal is aborted', async () => {
      const machine = new TempMachine(tree.home);
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(loadConfig({ machine, cwd: tree.work, signal: controller.signal }), { name: 'AbortError' });
      assert.equal(machine.reads.length, 0);
    });
  });

  describe('top level', () => {
    it('treats {} and an empty mcpServers as no servers', async () => {
      assert.deepEqual((await loadWith(tree, {})).servers, []);
      const loaded = await loadWith(tree, { mcpServers: {} });
      assert.equal(loaded.exists, true);
      assert.deepEqual(loaded.servers, []);
    });

    it('rejects a top level that is not an object', async () => {
      await assert.rejects(loadWith(tree, '[1, 2]'), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.jsonPath, '$');
        assert.equal(err.file, join(tree.home, '.config/berry/mcp.json'));
        assert.match(err.message, /must contain a JSON object like \{"mcpServers": \{\.\.\.\}\}, got array/);
        return true;
      });
    });

    it('rejects mcpServers that is not an object', async () => {
      for (const value of [[], null, 'x', 3]) {
        await assert.rejects(loadWith(tree, { mcpServers: value }), (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.equal(err.jsonPath, '$.mcpServers');
          assert.match(err.message, /\$\.mcpServers in .*mcp\.json must be an object mapping server names to entries, got (array|null|string|number)/);
          return true;
        });
      }
    });

    it('rejects an unknown top-level key and lists the allowed ones', async () => {
      await assert.rejects(loadWith(tree, { mcpServers: {}, servers: {} }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.code, 'MCP_CONFIG_INVALID');
        assert.equal(err.jsonPath, '$.servers');
        assert.match(err.message, /Unknown top-level key "servers" in .*\. Allowed top-level keys: mcpServers\./);
        return true;
      });
    });

    it('rejects a top-level key given twice, with its line and column', async () => {
      const text = '{\n  "mcpServers": {},\n  "mcpServers": {"a": {"command": "x"}}\n}';
      await assert.rejects(loadWith(tree, text), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.line, 3);
        assert.equal(err.column, 3);
        assert.equal(err.jsonPath, '$.mcpServers');
        assert.match(err.message, /Duplicate top-level key "mcpServers" .* at line 3, column 3 \(first at line 2\)/);
        return true;
      });
    });
  });

  describe('servers', () => {
    it('keeps file order, integer-like names included', async () => {
      const text = '{"mcpServers": {"zeta": {"command": "z"}, "2": {"command": "b"}, "alpha": {"url": "http://a/"}, "1": {"command": "a"}}}';
      const loaded = await loadWith(tree, text);
      assert.deepEqual(
        loaded.servers.map((slot) => slot.name),
        ['zeta', '2', 'alpha', '1'],
      );
    });

    it('rereads the file on every call', async () => {
      const machine = new TempMachine(tree.home);
      await tree.writeDefault({ mcpServers: { a: { command: 'one' } } });
      const first = await loadConfig({ machine, cwd: tree.work });
      await tree.writeDefault({ mcpServers: { a: { command: 'two' } } });
      const second = await loadConfig({ machine, cwd: tree.work });
      assert.equal(stdioOf(first, 'a').command, 'one');
      assert.equal(stdioOf(second, 'a').command, 'two');
      assert.notEqual(stdioOf(first, 'a').fingerprint, stdioOf(second, 'a').fingerprint);
      assert.equal(machine.reads.length, 2);
    });

    it('asks the machine for its environment only when an entry uses ${VAR}', async () => {
      await tree.writeDefault({ mcpServers: { a: { command: 'x', args: ['$HOME', '$'] }, b: { url: 'https://x/', enabled: false, headers: { A: '${T}' } } } });
      const machine = new TempMachine(tree.home, { HOME: '/nope' });
      const loaded = await loadConfig({ machine, cwd: tree.work });
      assert.deepEqual(stdioOf(loaded, 'a').args, ['$HOME', '$']);
      assert.equal(machine.envCalls, 0);
      await tree.writeDefault({ mcpServers: { a: { command: 'x', args: ['${HOME}'] } } });
      const again = await loadConfig({ machine, cwd: tree.work });
      assert.deepEqual(stdioOf(again, 'a').args, ['/nope']);
      assert.equal(machine.envCalls, 1);
    });
  });
});
