import { describe, it, expect } from 'vitest';
import { createKeyedSerialiser, createLimiter } from './keyed-queue.ts';

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

describe('core: limiter', () => {
  it('keeps at most `limit` jobs in flight, starts waiting ones in order, and frees the slot of a failed job', async () => {
    const limited = createLimiter(2);
    const log: string[] = [];
    let inFlight = 0;
    let most = 0;
    const job = (name: string, fail = false) => async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      log.push(name);
      await tick();
      inFlight--;
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled(['a', 'b', 'c', 'd', 'e'].map((name) => limited(job(name, name === 'a'))));
    expect(most).toBe(2);
    expect(log).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  });

  it('with a limit of 1 applies work strictly one job after another', async () => {
    const limited = createLimiter(1);
    const log: string[] = [];
    const job = (name: string) => async () => {
      log.push(`${name}:start`);
      await tick();
      log.push(`${name}:end`);
    };
    await Promise.all([limited(job('x')), limited(job('y'))]);
    expect(log).toEqual(['x:start', 'x:end', 'y:start', 'y:end']);
  });
});
