import { describe, it, expect } from 'vitest';
import { andThen, isPromiseLike } from './maybe-async.ts';

const failed = (error: unknown): number | string => `failed: ${(error as Error).message}`;

describe('core: maybe-async', () => {
  it('stays synchronous for values and synchronous steps', () => {
    expect(andThen<number, number | string>(2, (value) => value * 2, failed)).toBe(4);
    expect(andThen<number, number | string>(2, () => { throw new Error('sync'); }, failed)).toBe('failed: sync');
  });

  it('goes asynchronous at the first promise, and sends every later failure to fail', async () => {
    const later = andThen<number, number | string>(Promise.resolve(2), (value) => value * 2, failed);
    expect(isPromiseLike(later)).toBe(true);
    expect(await later).toBe(4);
    expect(await andThen<number, number | string>(Promise.reject(new Error('value')), (value) => value, failed)).toBe('failed: value');
    expect(await andThen<number, number | string>(Promise.resolve(1), () => { throw new Error('next'); }, failed)).toBe('failed: next');
    expect(await andThen<number, number | string>(1, () => Promise.reject(new Error('returned')), failed)).toBe('failed: returned');
  });

  it('recognises thenables that are not native promises', async () => {
    const thenable = { then: (resolve: (value: number) => void) => resolve(7) };
    expect(isPromiseLike(thenable as unknown as Promise<number>)).toBe(true);
    expect(await andThen<number, number | string>(thenable as unknown as Promise<number>, (value) => value + 1, failed)).toBe(8);
    expect(isPromiseLike(null as unknown as number)).toBe(false);
  });
});
