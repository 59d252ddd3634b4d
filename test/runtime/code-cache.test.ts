import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES_DIR } from '../support/paths.js';

interface StepLine {
  readonly step: string;
  readonly state?: string;
  readonly tagChanged?: boolean;
  readonly ok: boolean;
  readonly result?: { refused: boolean; names: string[]; echo: unknown; image: string; badImage: string; globals: string[] };
  readonly error?: string;
  readonly outputs: number;
}

/** What every run must see, whichever cache its bootstrap came from. */
const SANDBOX = {
  refused: true,
  names: ['toUpperCase', 'join', 'stringify', 'encodeURI'],
  echo: { a: 1 },
  image: 'ok',
  badImage: 'TypeError',
  globals: [],
};

/**
 * The bootstrap's code cache is process-wide, so its life is watched in a fresh process:
 * test/fixtures/code-cache-child.mjs.
 */
describe('runtime: the bootstrap code cache', function () {
  this.timeout(60_000);
  const steps = new Map<string, StepLine>();

  before(() => {
    const child = spawnSync(process.execPath, ['--no-node-snapshot', join(FIXTURES_DIR, 'code-cache-child.mjs')], { encoding: 'utf8', timeout: 50_000 });
    assert.equal(child.status, 0, child.stderr);
    for (const line of child.stdout.trim().split('\n')) {
      const parsed = JSON.parse(line) as StepLine;
      steps.set(parsed.step, parsed);
    }
  });

  const step = (name: string): StepLine => {
    const line = steps.get(name);
    assert.ok(line, `the child printed no line for "${name}"`);
    return line;
  };

  it('is remade once, after the second compile of the process, and runs keep every guard from it', () => {
    assert.equal(step('hostile first run').state, 'first');
    for (const name of ['from the remade cache', 'again']) {
      assert.equal(step(name).state, 'remade', name);
      assert.deepEqual(step(name).result, SANDBOX, name);
      assert.equal(step(name).outputs, 2, name);
    }
  });

  it('owes nothing to what a first run did to its own isolate (the cache is remade in an isolate of its own)', () => {
    assert.equal(step('hostile first run').result, 'done');
    assert.deepEqual(step('second run').result, SANDBOX);
    assert.deepEqual(step('from the remade cache').result, SANDBOX);
  });

  it('starts over when V8 rejects it after a flag change, and every run still works', () => {
    assert.equal(step('flag change').tagChanged, true, "the flag the child sets must change V8's cache tag");
    assert.equal(step('after a flag change').state, 'first');
    assert.equal(step('remade again').state, 'remade');
    for (const name of ['after a flag change', 'next', 'and next', 'remade again']) assert.deepEqual(step(name).result, SANDBOX, name);
  });
});
