import { describe, it, expect } from 'vitest';
import { createFairQueue } from './fair-queue.ts';

describe('runtime: the offload pool\'s fair queue', () => {
  it('serves groups in turn, each in its own order, whatever their backlog', () => {
    const queue = createFairQueue<string>();
    for (let index = 1; index <= 4; index++) queue.push('flood', `f${index}`);
    queue.push('other', 'o1');
    queue.push('third', 't1');
    queue.push('other', 'o2');
    const taken: string[] = [];
    expect(queue.peek()).toBe('f1');
    while (queue.size) taken.push(queue.shift()!);
    expect(taken).toEqual(['f1', 'o1', 't1', 'f2', 'o2', 'f3', 'f4']);
    expect(queue.shift()).toBeUndefined();
  });

  it('gives a newcomer the next turn after the groups already waiting, and drains everything', () => {
    const queue = createFairQueue<string>();
    queue.push('flood', 'f1');
    queue.push('flood', 'f2');
    expect(queue.shift()).toBe('f1');
    queue.push('newcomer', 'n1');
    expect([queue.shift(), queue.shift()]).toEqual(['f2', 'n1']);
    queue.push('a', 'a1');
    queue.push('b', 'b1');
    expect(queue.drain().sort()).toEqual(['a1', 'b1']);
    expect([queue.size, queue.peek()]).toEqual([0, undefined]);
  });
});
