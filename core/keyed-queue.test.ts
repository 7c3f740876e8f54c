import { describe, it, expect } from 'vitest';
import { createKeyedSerialiser } from './keyed-queue.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('core: keyed serialiser', () => {
  it('runs jobs of one key one at a time, in order, even after a failure; other keys run alongside', async () => {
    const serialised = createKeyedSerialiser();
    const log: string[] = [];
    const job = (name: string, fail = false) => async () => {
      log.push(`${name}:start`);
      await tick();
      log.push(`${name}:end`);
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([
      serialised('a', job('a1', true)),
      serialised('a', job('a2')),
      serialised('b', job('b1')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log.indexOf('a1:end')).toBeLessThan(log.indexOf('a2:start'));
    expect(log.indexOf('b1:start')).toBeLessThan(log.indexOf('a1:end')); // b did not wait for a
  });
});
