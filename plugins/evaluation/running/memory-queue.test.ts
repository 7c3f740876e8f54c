import { describe, it, expect } from 'vitest';
import { createMemoryQueue } from './memory-queue.ts';
import { testQueue } from '../../../testing/index.ts';

testQueue('memory', (options) => createMemoryQueue(options));

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('core: memory task queue', () => {
  it('runs at most `concurrency` tasks at once and every task of a burst, in order', async () => {
    const queue = createMemoryQueue({ concurrency: 3 });
    let active = 0;
    let peak = 0;
    const order: string[] = [];
    queue.start(async (id) => {
      active++;
      peak = Math.max(peak, active);
      order.push(id);
      await tick();
      active--;
    });
    const ids = Array.from({ length: 1000 }, (_, index) => `t${index}`);
    for (const id of ids) queue.enqueue(id);
    expect(queue.stats()).toEqual({ waiting: 997, active: 3 });
    while (queue.stats().waiting + queue.stats().active > 0) await tick();
    expect(peak).toBe(3);
    expect(order).toEqual(ids);
  });

  it('removes a waiting task, ignores duplicates and survives a throwing worker', async () => {
    const errors: string[] = [];
    const queue = createMemoryQueue({ concurrency: 1, onError: (id) => errors.push(id) });
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    queue.start(async (id) => {
      seen.push(id);
      if (id === 'a') await gate;
      if (id === 'c') throw new Error('boom');
    });
    queue.enqueue('a');
    queue.enqueue('b');
    queue.enqueue('b');
    queue.enqueue('c');
    queue.enqueue('d');
    expect(queue.has('b')).toBe(true);
    expect(queue.remove('b')).toBe(true);
    expect(queue.remove('a')).toBe(false);
    release();
    while (queue.stats().waiting + queue.stats().active > 0) await tick();
    expect(seen).toEqual(['a', 'c', 'd']);
    expect(errors).toEqual(['c']);
    await queue.close();
    expect(() => queue.enqueue('e')).toThrow(/closed/);
  });

  it('gives a free slot to the owner with the fewest running tasks, so one backlog starves nobody (issue 13 item 7)', async () => {
    const queue = createMemoryQueue({ concurrency: 2 });
    const order: string[] = [];
    const gates = new Map<string, () => void>();
    queue.start((id) => {
      order.push(id);
      return new Promise<void>((resolve) => gates.set(id, resolve));
    });
    for (let index = 0; index < 300; index++) queue.enqueue(`a${index}`, { owner: 'mallory' });
    queue.enqueue('b0', { owner: 'bob' });
    queue.enqueue('b1', { owner: 'bob' });
    queue.enqueue('c0', { owner: 'carol' });
    expect(order).toEqual(['a0', 'a1']);
    gates.get('a0')!();
    await tick();
    // mallory still runs one; bob and carol run none: bob (first to wait) gets the slot.
    expect(order.at(-1)).toBe('b0');
    gates.get('a1')!();
    await tick();
    expect(order.at(-1)).toBe('c0');
    gates.get('b0')!();
    await tick();
    // bob and mallory have nothing running now but mallory was served longer ago.
    expect(order.at(-1)).toBe('a2');
    gates.get('c0')!();
    await tick();
    expect(order.at(-1)).toBe('b1');
    expect(queue.stats()).toEqual({ waiting: 297, active: 2 });
    expect(queue.remove('a299')).toBe(true);
    expect(queue.remove('a2')).toBe(false);
    expect(queue.stats().waiting).toBe(296);
    const closed = queue.close();
    for (const release of gates.values()) release();
    await closed;
  });

  it('keeps first-come order within one owner and across tasks without an owner', async () => {
    const queue = createMemoryQueue({ concurrency: 1 });
    const order: string[] = [];
    queue.start(async (id) => { order.push(id); await tick(); });
    for (const id of ['x1', 'x2', 'x3']) queue.enqueue(id, { owner: 'x' });
    queue.enqueue('n1');
    queue.enqueue('n2');
    while (queue.stats().waiting + queue.stats().active > 0) await tick();
    expect(order).toEqual(['x1', 'n1', 'x2', 'n2', 'x3']);
  });

  it('refuses a concurrency that is not a positive integer', () => {
    expect(() => createMemoryQueue({ concurrency: 0 })).toThrow(/positive integer/);
  });
});
