/**
 * The one seeded pseudo-random generator of the service: sfc32 (Chris Doty-Humphrey's Small Fast Counting
 * generator, PractRand-clean, 128-bit state) seeded through splitmix32-style mixing of the seed. Every
 * perturbation draws from here, so the same seed gives the same output on every runtime; `Math.random` is
 * never used.
 */
import type { Rng } from '../mutator.ts';

const TWO_POW_32 = 4294967296;

/** Murmur3's 32-bit finaliser: spreads every input bit over the whole word. */
function fmix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Splits a safe integer seed into its low and high 32-bit words (negative and fractional seeds are folded). */
function seedWords(seed: number): [number, number] {
  const whole = Number.isFinite(seed) ? Math.trunc(Math.abs(seed)) : 0;
  const low = whole % TWO_POW_32;
  const high = Math.floor(whole / TWO_POW_32) % TWO_POW_32;
  return [low >>> 0, high >>> 0];
}

/**
 * Derives an unsigned 32-bit seed from a seed and a path of integers (variant index, task index, chain step),
 * so independent streams never share state and one stream's length never shifts another's.
 */
export function deriveSeed(seed: number, ...path: number[]): number {
  const [low, high] = seedWords(seed);
  let hash = fmix32(low ^ 0x9e3779b9);
  hash = fmix32(hash ^ Math.imul(high, 0x85ebca6b) ^ 0x7f4a7c15);
  for (const part of path) hash = fmix32((hash + 0x9e3779b9) ^ Math.imul(part | 0, 0xcc9e2d51));
  return hash;
}

/** Creates an sfc32 generator for `seed` (any non-negative safe integer). */
export function createRng(seed: number): Rng {
  const [low, high] = seedWords(seed);
  // One typed array holds the state: one allocation per generator, and the methods below share it.
  const state = new Int32Array(4);
  state[0] = fmix32(low ^ 0x9e3779b9);
  state[1] = fmix32(high ^ 0x243f6a88);
  state[2] = fmix32(state[0] ^ state[1] ^ 0xb7e15162);
  state[3] = 1;
  // Discard the first outputs: sfc32's state needs a few rounds to decorrelate from the seed words.
  for (let round = 0; round < 12; round++) sfc32(state);
  return {
    next: () => (sfc32(state) >>> 0) / TWO_POW_32,
    int: (max: number) => (max >= 1 ? Math.floor(((sfc32(state) >>> 0) / TWO_POW_32) * Math.floor(max)) : 0),
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('cannot pick from an empty list');
      return items[Math.floor(((sfc32(state) >>> 0) / TWO_POW_32) * items.length)]!;
    },
  };
}

/** One sfc32 step (PractRand reference, 32-bit variant) over `[a, b, c, counter]`; returns the output word. */
function sfc32(state: Int32Array): number {
  const a = state[0]!;
  const b = state[1]!;
  const c = state[2]!;
  const d = state[3]!;
  const t = (((a + b) | 0) + d) | 0;
  state[3] = (d + 1) | 0;
  state[0] = b ^ (b >>> 9);
  state[1] = (c + (c << 3)) | 0;
  state[2] = (((c << 21) | (c >>> 11)) + t) | 0;
  return t;
}
