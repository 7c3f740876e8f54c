/**
 * `zero_width`: hides invisible characters between graphemes — zero-width space, zero-width non-joiner, word
 * joiner and the BOM as zero-width no-break space — a filter-evasion and tokenizer-stress trick. They go only
 * between grapheme clusters (UAX #29), never inside an emoji sequence or after a base letter's marks, and the
 * zero-width joiner is never used, since between two emoji it would fuse them into a new one.
 * Options: `rate` (0..1, default 0.2, share of boundaries filled; at least one when the text has two graphemes).
 */
import type { Mutator } from '../../core/mutator.ts';
import { graphemes, pickPositions, rateOption } from './text.ts';

const INVISIBLE = ['\u200b', '\u200c', '\u2060', '\ufeff'] as const;

const mutator: Mutator = {
  type: 'zero_width',
  description: 'Inserts invisible zero-width characters between graphemes (option rate, default 0.2).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.2);
    const clusters = graphemes(text);
    if (clusters.length < 2) return text;
    const chosen = pickPositions(clusters.length - 1, rate, rng);
    let out = clusters[0]!;
    for (let index = 1; index < clusters.length; index++) {
      if (chosen.has(index - 1)) out += INVISIBLE[rng.int(INVISIBLE.length)];
      out += clusters[index];
    }
    return out;
  },
};

export default mutator;
