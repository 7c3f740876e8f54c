import { describe, it, expect } from 'vitest';
import { createMemoryQueue } from './tasks.ts';

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

  it('refuses a concurrency that is not a positive integer', () => {
    expect(() => createMemoryQueue({ concurrency: 0 })).toThrow(/positive integer/);
  });
});
