import assert from 'node:assert/strict';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationHandler } from '../../src/bindings/handlers.js';
import { RequestOwners } from '../../src/bindings/connection/request-owners.js';

const handler = (): ElicitationHandler => async () => ({ action: 'decline' });
/** A request as the SDK hands it to the transport: the params the caller tagged, spread. */
const request = (id: number, owner?: ElicitationHandler): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', ...RequestOwners.tag(owner) } }) as JSONRPCMessage;

describe('RequestOwners (whose handler answers a server request)', () => {
  async function pair() {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    const host = handler();
    const owners = new RequestOwners(host);
    owners.track(ours);
    await ours.start();
    await theirs.start();
    return { ours, theirs, owners, host };
  }

  it('attributes by the related request, else by the single owner in flight, else nobody', async () => {
    const { ours, theirs, owners, host } = await pair();
    const a = handler();
    const b = handler();
    assert.deepEqual(owners.ownerOf(100), { handler: host });
    await ours.send(request(1, a));
    assert.deepEqual(owners.ownerOf(100), { handler: a });
    await ours.send(request(2, b));
    assert.equal(owners.ownerOf(100), 'unattributed');
    owners.relate(101, [2]);
    assert.deepEqual(owners.ownerOf(101), { handler: b });
    // The answer to 1 arrives: only b's request is in flight.
    await theirs.send({ jsonrpc: '2.0', id: 1, result: {} });
    assert.deepEqual(owners.ownerOf(100), { handler: b });
    // A request related to one that has ended is nobody's, even with another in flight.
    owners.relate(102, [1]);
    assert.equal(owners.ownerOf(102), 'unattributed');
  });

  it('the tag never reaches the wire', () => {
    assert.equal(JSON.stringify(request(1, handler())), JSON.stringify(request(1)));
  });

  it('a resent request keeps its owner; a cancelled one leaves; our answer drops the relation', async () => {
    const { ours, owners, host } = await pair();
    const a = handler();
    await ours.send(request(1, a));
    await ours.send(request(1));
    assert.deepEqual(owners.ownerOf(100), { handler: a });
    await ours.send(request(2));
    assert.equal(owners.ownerOf(100), 'unattributed');
    await ours.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    assert.deepEqual(owners.ownerOf(100), { handler: host });
    owners.relate(103, [1]);
    assert.equal(owners.ownerOf(103), 'unattributed');
    await ours.send({ jsonrpc: '2.0', id: 103, result: { action: 'decline' } });
    assert.deepEqual(owners.ownerOf(103), { handler: host });
  });
});
