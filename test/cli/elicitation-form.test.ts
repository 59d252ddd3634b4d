import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ElicitationParams } from '../../src/bindings/handlers.js';
import { createElicitationForm } from '../../src/cli/elicitation-form.js';
import { type HttpFixture, startHttpFixture } from '../support/fixture-servers.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

const FORM: ElicitationParams = {
  message: 'Set up your profile',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', default: 'John Doe' },
      age: { type: 'integer', title: 'Age', default: 30, minimum: 0 },
      color: { type: 'string', title: 'Color', enum: ['red', 'green'] },
      subscribe: { type: 'boolean', title: 'Subscribe' },
    },
    required: ['color'],
  },
};

/** Real streams: answers are written one at a time, each when a prompt has appeared on `output`. */
function streams(answers: string[]): { input: PassThrough; output: PassThrough; written: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    if (/(: |\] )$/.test(chunk) && answers.length > 0) setImmediate(() => input.write(`${answers.shift()}\n`));
  });
  return { input, output, written: () => text };
}

const context = { server: 'profile', signal: new AbortController().signal };

describe('CLI elicitation form', function () {
  this.timeout(30_000);

  it('asks field by field with title, type and default; Enter keeps the default; bad answers are asked again', async () => {
    const io = streams(['y', '', 'abc', '4.5', '41', '', 'purple', 'red', 'maybe', 'y']);
    const form = createElicitationForm({ input: io.input, output: io.output, interactive: true });
    const result = await form(FORM, context);
    assert.deepEqual(result, { action: 'accept', content: { name: 'John Doe', age: 41, color: 'red', subscribe: true } });
    const text = io.written();
    assert.match(text, /Server "profile" asks: Set up your profile/);
    assert.match(text, /Name \(string, default "John Doe"\): /);
    assert.match(text, /Age \(integer, default 30\): /);
    assert.match(text, /Color \(string, one of red \| green, required\): /);
    assert.match(text, /Subscribe \(boolean, y\/n\): /);
    assert.match(text, /not a number; try again/);
    assert.match(text, /not a whole number; try again/);
    assert.match(text, /this field is required; try again/);
    assert.match(text, /choose one of red, green; try again/);
    assert.match(text, /answer y or n; try again/);
  });

  it('n at the first question declines; end of input cancels', async () => {
    const no = streams(['n']);
    assert.deepEqual(await createElicitationForm({ input: no.input, output: no.output, interactive: true })(FORM, context), {
      action: 'decline',
    });
    const eof = streams([]);
    const form = createElicitationForm({ input: eof.input, output: eof.output, interactive: true });
    const pending = form(FORM, context);
    setTimeout(() => eof.input.end(), 50);
    assert.deepEqual(await pending, { action: 'cancel' });
  });

  it('off a terminal it declines at once and says so', async () => {
    const io = streams([]);
    const result = await createElicitationForm({ input: io.input, output: io.output })(FORM, context);
    assert.deepEqual(result, { action: 'decline' });
    assert.match(io.written(), /asks: Set up your profile\n {2}declined: not on a terminal, nobody can answer/);
  });

  it('URL mode shows the URL and the message, opens nothing, and accepts on Enter', async () => {
    const io = streams(['']);
    const url: ElicitationParams = { mode: 'url', message: 'Sign in\u001b[31m', url: 'https://example.com/auth', elicitationId: 'e1' };
    const result = await createElicitationForm({ input: io.input, output: io.output, interactive: true })(url, context);
    assert.deepEqual(result, { action: 'accept' });
    assert.match(io.written(), /asks: Sign in\n {2}URL: https:\/\/example\.com\/auth\n {2}\(berry-mcp does not open it/);
    assert.doesNotMatch(io.written(), /\u001b/, 'no escape sequence from the server reaches the terminal');
  });

  describe('in the berry-mcp command', () => {
    let tmp: ReturnType<typeof tempDir>;
    let fixture: HttpFixture;
    before(async () => {
      tmp = tempDir();
      fixture = await startHttpFixture();
      writeConfig(tmp.dir, { fixture: { url: fixture.url } });
    });
    after(async () => {
      await fixture.close();
      tmp.cleanup();
    });

    it('on a real terminal (a pty from script(1)) the form fills an elicitation, with defaults', async () => {
      const command = [process.execPath, '--no-node-snapshot', BIN, 'call', 'fixture', 'elicit', '{}', '--config', 'mcp.json'].join(' ');
      const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: tmp.dir, stdio: ['pipe', 'pipe', 'pipe'] });
      const answers = ['y', '', '', 'hello'];
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        // readline on a terminal follows its prompt with cursor moves.
        if (/(: |\] )(\u001b\[[0-9;]*[A-Za-z])*$/.test(chunk) && answers.length > 0) {
          setTimeout(() => child.stdin.write(`${answers.shift()}\r`), 20);
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, out);
      assert.match(out, /Server "fixture" asks: Who are you\?/);
      assert.match(out, /Name \(string, default "John Doe"\)/);
      assert.match(out, /\{"action":"accept","content":\{"name":"John Doe","age":30,"note":"hello"\}\}/);
    });

    it('with stdin not a terminal, the elicitation is declined and stderr says so', async () => {
      const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'call', 'fixture', 'elicit', '{}', '--config', 'mcp.json'], {
        cwd: tmp.dir,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.end();
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      assert.match(stdout, /\{"action":"decline"\}/);
      assert.match(stderr, /Server "fixture" asks: Who are you\?\n {2}declined: not on a terminal/);
    });
  });
});
