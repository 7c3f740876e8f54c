/**
 * `typo`: realistic keyboard slips — a letter replaced by a QWERTY neighbour, dropped, doubled, or swapped
 * with the next letter — at a configurable rate (TextAttack's and nlpaug's keyboard augmenters model the
 * same four slips). Only lone ASCII letters are touched, so accents, emoji and non-Latin script stay whole.
 * Options: `rate` (0..1, default 0.05, share of letters slipped; at least one slip when any letter exists).
 */
import type { Mutator } from '../../core/mutator.ts';
import { isLoneAsciiLetter, pickPositions, rateOption } from './text.ts';
import { matchCase } from '../../core/mutator.ts';

/** Adjacent keys on a US QWERTY keyboard. */
const NEIGHBOURS: Record<string, string> = {
  q: 'wa', w: 'qeas', e: 'wrsd', r: 'etdf', t: 'ryfg', y: 'tugh', u: 'yihj', i: 'uojk', o: 'ipkl', p: 'ol',
  a: 'qwsz', s: 'awedxz', d: 'serfcx', f: 'drtgvc', g: 'ftyhbv', h: 'gyujnb', j: 'huikmn', k: 'jiolm', l: 'kop',
  z: 'asx', x: 'zsdc', c: 'xdfv', v: 'cfgb', b: 'vghn', n: 'bhjm', m: 'njk',
};

const mutator: Mutator = {
  type: 'typo',
  description: 'Keyboard slips: QWERTY-neighbour substitutions, dropped, doubled and transposed letters (option rate, default 0.05).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.05);
    const letters: number[] = [];
    for (let index = 0; index < text.length; index++) if (isLoneAsciiLetter(text, index)) letters.push(index);
    const chosen = pickPositions(letters.length, rate, rng);
    if (chosen.size === 0) return text;
    // Letter positions ascend, so the output is built from slices between slips, not character by character.
    const slipAt = [...chosen].map((which) => letters[which]!).sort((a, b) => a - b);
    let out = '';
    let cursor = 0;
    for (const index of slipAt) {
      if (index < cursor) continue; // the previous slip swapped this letter already
      const char = text[index]!;
      out += text.slice(cursor, index);
      cursor = index + 1;
      const slip = rng.int(4);
      if (slip === 1) continue; // dropped
      if (slip === 2) {
        out += char + char;
      } else if (slip === 3 && index + 1 < text.length && isLoneAsciiLetter(text, index + 1) && text[index + 1] !== char) {
        out += text[index + 1]! + char;
        cursor = index + 2;
      } else {
        const keys = NEIGHBOURS[char.toLowerCase()]!;
        out += matchCase(char, keys.charAt(rng.int(keys.length)));
      }
    }
    out += text.slice(cursor);
    return out;
  },
};

export default mutator;
