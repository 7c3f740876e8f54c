/**
 * `leetspeak`: writes letters as the digits and symbols they resemble (`e` → `3`, `a` → `4`), a classic
 * filter-evasion encoding (garak and PyRIT ship the same converter). Only lone ASCII letters are replaced.
 * Options: `rate` (0..1, default 0.5, share of replaceable letters; at least one when any exists).
 */
import type { Mutator } from '../../core/mutator.ts';
import { isLoneAsciiLetter, pickPositions, rateOption } from './text.ts';

/** Letter (either case) → its leet spellings. */
const LEET: Record<string, readonly string[]> = {
  a: ['4', '@'], b: ['8'], e: ['3'], g: ['9', '6'], i: ['1', '!'], l: ['1', '|'], o: ['0'], s: ['5', '$'], t: ['7', '+'], z: ['2'],
};

const LEET_CODES = new Set(Object.keys(LEET).map((letter) => letter.charCodeAt(0)));

const mutator: Mutator = {
  type: 'leetspeak',
  description: 'Writes letters as look-alike digits and symbols, e.g. e → 3, a → 4 (option rate, default 0.5).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.5);
    const spots: number[] = [];
    for (let index = 0; index < text.length; index++) {
      // `| 32` lower-cases an ASCII letter without allocating a string.
      if (isLoneAsciiLetter(text, index) && LEET_CODES.has(text.charCodeAt(index) | 32)) spots.push(index);
    }
    const chosen = pickPositions(spots.length, rate, rng);
    if (chosen.size === 0) return text;
    const chars = text.split('');
    for (const which of chosen) {
      const index = spots[which]!;
      chars[index] = rng.pick(LEET[chars[index]!.toLowerCase()]!);
    }
    return chars.join('');
  },
};

export default mutator;
