/**
 * `whitespace`: perturbs the spacing between words — gaps widened, turned into tabs or line breaks, or
 * closed (two words run together), plus stray leading or trailing blanks. Edits happen only at existing
 * whitespace or at the ends of the text, never inside a grapheme.
 * Options: `rate` (0..1, default 0.3, share of gaps changed; at least one change in non-empty text).
 */
import type { Mutator } from '../../core/mutator.ts';
import { pickPositions, rateOption } from './text.ts';

/** What a gap between words may become; the empty string runs the words together. */
const GAPS = ['  ', '   ', '\t', '\n', ' \n ', '', ' \t '] as const;
const PADDING = [' ', '  ', '\n', '\t'] as const;

const mutator: Mutator = {
  type: 'whitespace',
  description: 'Widens, collapses or replaces the gaps between words with tabs and line breaks (option rate, default 0.3).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.3);
    if (text.length === 0 || rate === 0) return text;
    const pieces = text.split(/(\s+)/);
    const gaps: number[] = [];
    // Leading and trailing runs are padding, handled below; only gaps between two words are edited here.
    for (let index = 1; index < pieces.length; index += 2) if (pieces[index - 1] !== '' && pieces[index + 1] !== '') gaps.push(index);
    for (const which of pickPositions(gaps.length, rate, rng)) {
      const index = gaps[which]!;
      let gap: string = rng.pick(GAPS);
      if (gap === pieces[index]) gap = `${gap} `;
      pieces[index] = gap;
    }
    let out = pieces.join('');
    if (gaps.length === 0 || rng.next() < rate / 2) {
      out = rng.next() < 0.5 ? rng.pick(PADDING) + out : out + rng.pick(PADDING);
    }
    return out;
  },
};

export default mutator;
