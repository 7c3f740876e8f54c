/**
 * `homoglyph`: swaps Latin letters for look-alike Cyrillic and Greek ones (Unicode TR #39 confusables), the
 * spoofing trick that slips past keyword filters while a human reads the same text. Every replacement is one
 * BMP code point, and only lone ASCII letters are replaced, so no grapheme is ever split.
 * Options: `rate` (0..1, default 0.2, share of replaceable letters swapped; at least one when any exists).
 */
import type { Mutator } from '../../core/mutator.ts';
import { isLoneAsciiLetter, pickPositions, rateOption } from './text.ts';

/** Latin letter → confusable code points (TR #39 confusables.txt, single-character mappings). */
const CONFUSABLES: Record<string, string> = {
  a: 'а', c: 'сϲ', d: 'ԁ', e: 'е', h: 'һ', i: 'іι', j: 'ј', k: 'κ', l: 'ӏ', n: 'ո', o: 'оοσ', p: 'рρ', q: 'ԛ',
  s: 'ѕ', u: 'υ', v: 'ν', w: 'ԝ', x: 'хχ', y: 'уγ', A: 'АΑ', B: 'ВΒ', C: 'СϹ', E: 'ЕΕ', H: 'НΗ', I: 'ІΙ',
  J: 'Ј', K: 'КΚ', M: 'МΜ', N: 'Ν', O: 'ОΟ', P: 'РΡ', S: 'Ѕ', T: 'ТΤ', X: 'ХΧ', Y: 'ҮΥ', Z: 'Ζ',
};

const mutator: Mutator = {
  type: 'homoglyph',
  description: 'Replaces Latin letters with look-alike Cyrillic and Greek letters (option rate, default 0.2).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.2);
    const spots: number[] = [];
    for (let index = 0; index < text.length; index++) {
      if (CONFUSABLES[text[index]!] !== undefined && isLoneAsciiLetter(text, index)) spots.push(index);
    }
    const chosen = pickPositions(spots.length, rate, rng);
    if (chosen.size === 0) return text;
    const chars = text.split('');
    for (const which of chosen) {
      const index = spots[which]!;
      const lookalikes = CONFUSABLES[chars[index]!]!;
      chars[index] = lookalikes.charAt(rng.int(lookalikes.length));
    }
    return chars.join('');
  },
};

export default mutator;
