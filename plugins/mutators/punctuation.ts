/**
 * `punctuation`: the punctuation noise of hurried typing — marks dropped, swapped for others, or added after
 * words (the punctuation insertion of AEDA, Karimi et al. 2021). Only ASCII punctuation is removed or replaced
 * and marks are added only after a whole word, so no grapheme is split.
 * Options: `rate` (0..1, default 0.3: share of existing marks changed; marks are added after a third as many
 * words; at least one change in non-empty text).
 */
import type { Mutator } from '../../core/mutator.ts';
import { pickPositions, rateOption } from './text.ts';

const MARKS = ['.', ',', '!', '?', ';', ':', '...', '!!', '?!', ' -'] as const;

function isAsciiPunctuation(code: number): boolean {
  return (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126);
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000;
}

/** A word ends here when whitespace or the end follows, and the character is not half of a pair or a joiner. */
function endsWord(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (isSpace(code) || code === 0x200d || (code >= 0xd800 && code <= 0xdbff)) return false;
  return index + 1 === text.length || isSpace(text.charCodeAt(index + 1));
}

const mutator: Mutator = {
  type: 'punctuation',
  description: 'Drops, swaps and inserts punctuation marks (option rate, default 0.3).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.3);
    if (text.length === 0 || rate === 0) return text;
    const marks: number[] = [];
    const wordEnds: number[] = [];
    for (let index = 0; index < text.length; index++) {
      if (isAsciiPunctuation(text.charCodeAt(index))) marks.push(index);
      else if (endsWord(text, index)) wordEnds.push(index);
    }
    const edits = new Map<number, string>();
    for (const which of pickPositions(marks.length, rate, rng, false)) {
      const index = marks[which]!;
      const mark: string = rng.next() < 0.5 ? rng.pick(MARKS) : '';
      edits.set(index, mark === text[index] ? '' : mark);
    }
    const insert = (index: number) => edits.set(index, text[index] + rng.pick(MARKS));
    for (const which of pickPositions(wordEnds.length, rate / 3, rng, false)) insert(wordEnds[which]!);
    if (edits.size === 0) {
      const spot = rng.int(marks.length + wordEnds.length);
      if (spot < marks.length) edits.set(marks[spot]!, '');
      else if (wordEnds.length > 0) insert(wordEnds[spot - marks.length]!);
    }
    if (edits.size === 0) return text;
    let out = '';
    let cursor = 0;
    for (const index of [...edits.keys()].sort((a, b) => a - b)) {
      out += text.slice(cursor, index) + edits.get(index)!;
      cursor = index + 1;
    }
    return out + text.slice(cursor);
  },
};

export default mutator;
