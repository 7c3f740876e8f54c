/**
 * `synonym`: replaces words with thesaurus synonyms, the way TextAttack's WordNet swap does. The thesaurus is
 * the `synonyms` package (finnlp, WordNet-derived, MIT): 12,430 entries, indexed both ways here so every one
 * of its ~27,000 words finds its synonym sets. Function words are never replaced; the replaced word keeps the
 * original's case (UPPER, Capitalised, lower) and the punctuation around it.
 * Options: `rate` (0..1, default 0.3, share of replaceable words replaced; at least one when any exists).
 */
import type { Mutator, MutatorContext } from '../../core/mutator.ts';
import { pickPositions, rateOption } from './text.ts';
import { matchCase } from '../../core/mutator.ts';

/** Words that carry grammar rather than meaning: swapping them breaks sentences (`a` → `ampere`). */
const STOPWORDS = new Set(`a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves get got let may might must shall also yes per via ago please thanks okay hello`.split(/\s+/));

/** A run of letters, apostrophes inside words included (`don't` is one word, never `don` + `t`). */
const WORD = /[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*/gu;
const PLAIN = /^[a-z]+$/;
const USABLE = /^[a-z][a-z -]*[a-z]$/;

/** Part-of-speech keys of the thesaurus: noun, verb, adjective, satellite adjective, adverb. */
type Pos = 'n' | 'v' | 'a' | 's' | 'r';
type Senses = Partial<Record<Pos, string[]>>;

/** After these, the next word is most likely a noun (or an adjective before one). */
const BEFORE_NOUN = new Set('a an the my your his her its our their this that these those some any each every no of'.split(' '));
/** After these, the next word is most likely a verb. */
const BEFORE_VERB = new Set('to i you we they he she it can could will would shall should may might must do does did please not'.split(' '));
const NOUN_FIRST: readonly Pos[] = ['n', 'a', 's', 'v', 'r'];
const VERB_FIRST: readonly Pos[] = ['v', 'r', 'n', 'a', 's'];

let index: Map<string, Senses> | undefined;
// The thesaurus (27,000 words) is imported on the first synonym mutation, not at start-up; after that the
// mutator is synchronous.
let loading: Promise<Map<string, Senses>> | undefined;
const loadThesaurus = () => (loading ??= import('synonyms').then(({ default: synonyms }) => (index = buildIndex(synonyms.dictionary))));

/** Word → its synonyms per part of speech, from every synonym set the thesaurus lists. */
function buildIndex(dictionary: Record<string, Partial<Record<Pos, string[]>>>): Map<string, Senses> {
  const sets = new Map<string, Partial<Record<Pos, Set<string>>>>();
  for (const entry of Object.values(dictionary)) {
    for (const [pos, group] of Object.entries(entry) as Array<[Pos, string[]]>) {
      for (const word of group) {
        if (!PLAIN.test(word) || STOPWORDS.has(word)) continue;
        let senses = sets.get(word);
        if (!senses) sets.set(word, (senses = {}));
        const set = (senses[pos] ??= new Set());
        for (const other of group) if (other !== word && USABLE.test(other)) set.add(other);
      }
    }
  }
  const built = new Map<string, Senses>();
  for (const [word, senses] of sets) {
    const usable: Senses = {};
    for (const [pos, set] of Object.entries(senses) as Array<[Pos, Set<string>]>) if (set.size > 0) usable[pos] = [...set].sort();
    if (Object.keys(usable).length > 0) built.set(word, usable);
  }
  return built;
}

/** How many words the thesaurus can replace (for documentation and tests). */
export async function thesaurusSize(): Promise<number> {
  return (await loadThesaurus()).size;
}

/** The synonyms of the most likely part of speech, guessed from the word before (a determiner or a pronoun). */
function choicesFor(senses: Senses, previous: string | undefined): string[] {
  const order = previous !== undefined && BEFORE_VERB.has(previous) ? VERB_FIRST : previous !== undefined && BEFORE_NOUN.has(previous) ? NOUN_FIRST : undefined;
  if (order) for (const pos of order) if (senses[pos]) return senses[pos];
  return Object.values(senses).flat();
}

const mutator: Mutator = {
  type: 'synonym',
  description: 'Replaces words with WordNet-derived synonyms, keeping case and punctuation (option rate, default 0.3).',
  deterministic: true,
  mutate(text, { rng, options }) {
    const rate = rateOption(options, 'rate', 0.3);
    if (text.length === 0) return text;
    return index ? replaceWords(text, index, rate, rng) : loadThesaurus().then((words) => replaceWords(text, words, rate, rng));
  },
};

function replaceWords(text: string, words: Map<string, Senses>, rate: number, rng: MutatorContext['rng']): string {
  const spots: Array<{ start: number; end: number; choices: string[] }> = [];
  let previous: string | undefined;
  for (const match of text.matchAll(WORD)) {
    const lower = match[0].toLowerCase();
    const senses = lower.length < 3 ? undefined : words.get(lower);
    if (senses) spots.push({ start: match.index, end: match.index + match[0].length, choices: choicesFor(senses, previous) });
    previous = lower;
  }
  const chosen = pickPositions(spots.length, rate, rng);
  if (chosen.size === 0) return text;
  let out = '';
  let cursor = 0;
  for (let which = 0; which < spots.length; which++) {
    if (!chosen.has(which)) continue;
    const spot = spots[which]!;
    out += text.slice(cursor, spot.start) + matchCase(text.slice(spot.start, spot.end), rng.pick(spot.choices));
    cursor = spot.end;
  }
  return out + text.slice(cursor);
}

export default mutator;
