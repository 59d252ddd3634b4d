import assert from 'node:assert/strict';
import { CrossingGate, heapBytes, marginBytes, structuralTokens, type MeasureRoom } from '../../src/runtime/crossing.js';

const MB = 1024 * 1024;

describe('crossing: what an answer costs the sandbox', () => {
  it('counts one byte a character up to Latin-1, two past it', () => {
    assert.equal(heapBytes('abc'), 3);
    assert.equal(heapBytes('été'), 3);
    assert.equal(heapBytes('été一'), 8);
    assert.equal(heapBytes('😀'), 4);
  });

  it('counts every ",", "{" and "[" as a token parsing may turn into an object', () => {
    assert.equal(structuralTokens('"xxxx"'), 0);
    assert.equal(structuralTokens('[{},{}]'), 4);
    assert.equal(structuralTokens('{"a":"b,c"}'), 2);
  });
});

describe('CrossingGate (the isolate measured by a plain function)', () => {
  const gateWith = (rooms: number[], seen: boolean[] = []): CrossingGate => {
    const room: MeasureRoom = async (collect) => {
      seen.push(collect);
      return rooms.length > 1 ? rooms.shift()! : rooms[0]!;
    };
    return new CrossingGate(room, 16);
  };
  const envelope = (chars: number): string => `{"ok":true,"value":"${'x'.repeat(chars)}"}`;

  it('lets short answers through without measuring', async () => {
    const seen: boolean[] = [];
    assert.equal(await gateWith([0], seen).check('f', envelope(400)), undefined);
    assert.deepEqual(seen, []);
  });

  it('refuses what does not fit, after a collection, naming size, room and limit', async () => {
    const seen: boolean[] = [];
    const refused = await gateWith([10 * MB, 12 * MB], seen).check('f', envelope(12 * MB));
    assert.equal(refused?.code, 'MCP_RESULT_TOO_LARGE');
    assert.match(refused!.message, /^tools\.f\(\): the answer is 12\.0 MB .* the run has 12\.0 MB of its 16 MB memory limit/);
    assert.deepEqual(seen, [false, true]);
  });

  it('lets through what fits once the collection freed dead answers', async () => {
    assert.equal(await gateWith([2 * MB, 15 * MB]).check('f', envelope(8 * MB)), undefined);
  });

  it('counts answers arriving together against one room', async () => {
    const margin = marginBytes(16 * MB);
    // Room for one 5 MB answer and its margin, not two: the second is measured after the first.
    const rooms = [5 * MB + margin + 1000];
    const gate = new CrossingGate(async () => rooms[0]!, 16);
    const first = gate.check('f', envelope(5 * MB));
    const second = gate.check('f', envelope(5 * MB)).then((r) => r?.code);
    assert.equal(await first, undefined);
    rooms[0] = margin; // what the isolate has left once the first answer is in
    assert.equal(await second, 'MCP_RESULT_TOO_LARGE');
  });
});
