/**
 * `case`: changes letter case — random flips (the "sPoNgEbOb" perturbation), alternating, upper, lower or
 * title case. Case is changed per code point and only where the changed letter stays one code point of the
 * same length (`ß` is never widened to `SS`), so graphemes and string lengths are preserved.
 * Options: `mode` (`random`, `alternating`, `upper`, `lower`, `title`; default `random`), `rate` (0..1,
 * default 0.3, share of letters flipped in `random` mode; at least one when any letter has case).
 */
import type { Mutator } from '../../core/mutator.ts';
import { choiceOption, isAscii, pickPositions, rateOption } from './text.ts';

const MODES = ['random', 'alternating', 'upper', 'lower', 'title'] as const;

/** The other case of a code point, or undefined when it has none of the same length. */
function flipped(char: string): string | undefined {
  const upper = char.toUpperCase();
  const other = upper === char ? char.toLowerCase() : upper;
  return other !== char && other.length === char.length ? other : undefined;
}

function lengthSafe(char: string, changed: string): string {
  return changed.length === char.length ? changed : char;
}

const mutator: Mutator = {
  type: 'case',
  description: 'Changes letter case: random flips, alternating, upper, lower or title case (options mode, rate).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const mode = choiceOption(options, 'mode', MODES, 'random');
    const rate = rateOption(options, 'rate', 0.3);
    const chars = isAscii(text) ? text.split('') : Array.from(text);
    if (mode === 'upper' || mode === 'lower') {
      return chars.map((char) => lengthSafe(char, mode === 'upper' ? char.toUpperCase() : char.toLowerCase())).join('');
    }
    if (mode === 'title') {
      let startOfWord = true;
      return chars
        .map((char) => {
          const isLetter = char.toUpperCase() !== char.toLowerCase();
          const out = isLetter ? lengthSafe(char, startOfWord ? char.toUpperCase() : char.toLowerCase()) : char;
          if (/\s/.test(char)) startOfWord = true;
          else if (isLetter) startOfWord = false;
          return out;
        })
        .join('');
    }
    if (mode === 'alternating') {
      let upper = rng.next() < 0.5;
      return chars
        .map((char) => {
          if (flipped(char) === undefined) return char;
          upper = !upper;
          return lengthSafe(char, upper ? char.toUpperCase() : char.toLowerCase());
        })
        .join('');
    }
    const spots: number[] = [];
    for (let index = 0; index < chars.length; index++) {
      const code = chars[index]!.charCodeAt(0);
      // ASCII letters always flip; other code points are asked (most have no case).
      if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 0x80 && flipped(chars[index]!) !== undefined)) spots.push(index);
    }
    for (const which of pickPositions(spots.length, rate, rng)) chars[spots[which]!] = flipped(chars[spots[which]!]!)!;
    return chars.join('');
  },
};

export default mutator;
