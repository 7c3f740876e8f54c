/**
 * `jumble`: the "Cmabrigde" effect and its sentence-level cousin — the inner letters of words are scrambled
 * (first and last kept) and adjacent words swap places. Works on grapheme clusters (UAX #29), so accented
 * letters, emoji and any script are moved whole; punctuation stays where it was.
 * Options: `mode` (`letters`, `words` or `both`, default `both`), `rate` (0..1, default 0.5, share of words
 * scrambled), `swap_rate` (0..1, default 0.1, chance that a word swaps with the next one).
 */
import type { Mutator, Rng } from '../../core/mutator.ts';
import { choiceOption, graphemes, isAscii, pickPositions, rateOption, shuffled } from './text.ts';


function isAsciiAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

interface Token {
  lead: string;
  core: string;
  trail: string;
}

/**
 * Splits a whitespace-free piece into leading punctuation, the word (first to last grapheme holding a letter
 * or digit) and trailing punctuation — cut at grapheme boundaries, so `🏳️‍🌈` never loses its selector.
 */
function splitWord(piece: string): Token {
  if (isAscii(piece)) {
    let first = 0;
    while (first < piece.length && !isAsciiAlnum(piece.charCodeAt(first))) first++;
    let last = piece.length - 1;
    while (last >= first && !isAsciiAlnum(piece.charCodeAt(last))) last--;
    return { lead: piece.slice(0, first), core: piece.slice(first, last + 1), trail: piece.slice(last + 1) };
  }
  const clusters = graphemes(piece);
  let first = 0;
  while (first < clusters.length && !LETTER.test(clusters[first]!)) first++;
  let last = clusters.length - 1;
  while (last >= first && !LETTER.test(clusters[last]!)) last--;
  if (first > last) return { lead: piece, core: '', trail: '' };
  return { lead: clusters.slice(0, first).join(''), core: clusters.slice(first, last + 1).join(''), trail: clusters.slice(last + 1).join('') };
}

const LETTER = /[\p{L}\p{N}]/u;
const SENTENCE_END = /[.!?;:。！？]/u;

/** Shuffles the inner letters of a word, first and last kept; inner apostrophes and hyphens stay in place. */
function scramble(core: string, rng: Rng): string {
  const clusters = graphemes(core);
  const slots: number[] = [];
  for (let index = 1; index < clusters.length - 1; index++) if (LETTER.test(clusters[index]!)) slots.push(index);
  if (slots.length < 2) return core;
  const letters = slots.map((slot) => clusters[slot]!);
  // A few draws: a shuffle of two or three letters often lands on the original order.
  for (let attempt = 0; attempt < 4; attempt++) {
    const mixed = shuffled(letters, rng);
    if (mixed.some((letter, index) => letter !== letters[index])) {
      slots.forEach((slot, index) => (clusters[slot] = mixed[index]!));
      return clusters.join('');
    }
  }
  return core;
}

function canScramble(core: string): boolean {
  if (core.length < 4) return false;
  const inner = graphemes(core).slice(1, -1).filter((cluster) => LETTER.test(cluster));
  return inner.some((cluster) => cluster !== inner[0]);
}

const mutator: Mutator = {
  type: 'jumble',
  description: 'Scrambles the inner letters of words and swaps neighbouring words (options mode, rate, swap_rate).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const mode = choiceOption(options, 'mode', ['letters', 'words', 'both'] as const, 'both');
    const rate = rateOption(options, 'rate', 0.5);
    const swapRate = rateOption(options, 'swap_rate', 0.1);
    if (text.length === 0) return text;
    const pieces = text.split(/(\s+)/);
    const words: Token[] = [];
    for (let index = 0; index < pieces.length; index += 2) words.push(splitWord(pieces[index]!));
    let scrambled = 0;
    if (mode !== 'words') {
      const eligible = words.filter((word) => canScramble(word.core));
      for (const which of pickPositions(eligible.length, rate, rng)) {
        eligible[which]!.core = scramble(eligible[which]!.core, rng);
        scrambled++;
      }
    }
    if (mode !== 'letters') {
      const pairs: number[] = [];
      for (let index = 0; index + 1 < words.length; index++) {
        const [left, right] = [words[index]!, words[index + 1]!];
        // Words swap within a sentence, never across its end.
        if (left.core && right.core && left.core !== right.core && !SENTENCE_END.test(left.trail)) pairs.push(index);
      }
      // When the scramble already perturbed the text, swaps stay optional; otherwise at least one happens.
      const chosen = scrambled === 0 ? pickPositions(pairs.length, swapRate, rng) : new Set(pairs.map((_, i) => i).filter(() => rng.next() < swapRate));
      let lastSwapped = -2;
      for (const which of [...chosen].sort((a, b) => a - b)) {
        const index = pairs[which]!;
        if (index === lastSwapped + 1) continue; // never swap a word twice: it would travel along the sentence
        const held = words[index]!.core;
        words[index]!.core = words[index + 1]!.core;
        words[index + 1]!.core = held;
        lastSwapped = index;
      }
    }
    let out = '';
    for (let index = 0; index < pieces.length; index++) {
      if (index % 2 === 1) out += pieces[index];
      else {
        const word = words[index / 2]!;
        out += word.lead + word.core + word.trail;
      }
    }
    return out;
  },
};

export default mutator;
