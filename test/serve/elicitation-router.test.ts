import assert from 'node:assert/strict';
import { ElicitationRouter, elicitationModes } from '../../src/serve/elicitation.js';

const FORM = { mode: 'form' as const, message: 'name?', requestedSchema: { type: 'object' as const, properties: {} } };
const URL_MODE = { mode: 'url' as const, message: 'sign in', url: 'https://example.com', elicitationId: 'e1' };
const context = { server: 's', signal: new AbortController().signal };

describe('serve: ElicitationRouter (one client session)', () => {
  it("declines when none of the session's runs is in flight, and asks through its oldest run in flight that has the mode", async () => {
    const router = new ElicitationRouter();
    assert.deepEqual(await router.handle(FORM, context), { action: 'decline' });
    const asked: string[] = [];
    const target = (name: string, modes: ('form' | 'url')[]) => ({
      modes: new Set(modes),
      ask: async () => {
        asked.push(name);
        return { action: 'accept' as const, content: { who: name } };
      },
    });
    let finishA!: () => void;
    const a = router.during(target('a', ['form']), () => new Promise<void>((r) => (finishA = r)));
    let finishB!: () => void;
    const b = router.during(target('b', ['form', 'url']), () => new Promise<void>((r) => (finishB = r)));
    assert.deepEqual(await router.handle(FORM, context), { action: 'accept', content: { who: 'a' } });
    assert.deepEqual(await router.handle(URL_MODE, context), { action: 'accept', content: { who: 'b' } });
    finishA();
    await a;
    assert.deepEqual(await router.handle(FORM, context), { action: 'accept', content: { who: 'b' } });
    finishB();
    await b;
    assert.deepEqual(await router.handle(FORM, context), { action: 'decline' });
    assert.deepEqual(asked, ['a', 'b', 'b']);
  });

  it('reads the modes a client declared (an empty elicitation object means form)', () => {
    assert.deepEqual([...elicitationModes(undefined)], []);
    assert.deepEqual([...elicitationModes({})], []);
    assert.deepEqual([...elicitationModes({ elicitation: {} })], ['form']);
    assert.deepEqual([...elicitationModes({ elicitation: { url: {} } })], ['url']);
    assert.deepEqual([...elicitationModes({ elicitation: { form: {}, url: {} } })].sort(), ['form', 'url']);
  });
});
