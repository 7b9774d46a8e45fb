import { describe, expect, it } from 'vitest';
import { SocketBatcher, type SocketMessage } from '../src/client/socket-worker-protocol';

describe('the socket worker\'s batching', () => {
  const batcher = () => {
    const posted: SocketMessage[][] = [];
    return { posted, b: new SocketBatcher((m) => posted.push(m)) };
  };

  it('passes a message on at once while the page has no batch to handle', () => {
    const { posted, b } = batcher();
    b.received('echo');
    expect(posted).toEqual([['echo']]);
  });

  it('holds what arrives while the page handles a batch, and sends it all, in order, when the page has taken it', () => {
    const { posted, b } = batcher();
    b.received('one');
    const two = new ArrayBuffer(2);
    b.received(two);
    b.received('three');
    expect(posted).toEqual([['one']]);
    expect(b.waiting).toBe(2);
    b.taken();
    expect(posted).toEqual([['one'], [two, 'three']]);
    expect(b.waiting).toBe(0);
    b.taken();
    expect(posted).toHaveLength(2); // nothing held: nothing posted
    b.received('four');
    expect(posted.at(-1)).toEqual(['four']);
  });

  it('lets nothing stay behind when the socket closes', () => {
    const { posted, b } = batcher();
    b.received('one');
    b.received('two');
    b.drain();
    expect(posted).toEqual([['one'], ['two']]);
  });
});
