/**
 * Context words that raise or lower the confidence of a personal-data candidate, as presidio's context-aware
 * enhancer does: a word among the few before the value. Here the nearest such word decides: a "for" word lets
 * a weak form through (nine bare digits after "SSN", a run of digits after "call me on"), an "against" word
 * drops an ambiguous one (a national phone number after "order", a dotted quad after "version").
 *
 * The "for" lists are presidio's recognizers' `CONTEXT` lists (microsoft/presidio, MIT): us_ssn, phone, ip.
 * The "against" lists are this project's: words that name the value as something other than personal data.
 */
import type { PiiType } from './pii-types.ts';

type Polarity = 'for' | 'against';

const WORDS: Partial<Record<PiiType, Record<Polarity, readonly string[]>>> = {
  ssn: { for: ['social', 'security', 'ssn', 'ssns', 'ssid'], against: [] },
  phone: {
    for: ['phone', 'number', 'telephone', 'cell', 'cellphone', 'mobile', 'call', 'tel'],
    against: ['order', 'invoice', 'tracking', 'reference', 'ref', 'ticket', 'isbn', 'serial', 'account', 'iban', 'ssn', 'id', 'version', 'build', 'zip', 'postcode'],
  },
  ip: { for: ['ip', 'ipv4', 'ipv6'], against: ['version', 'versions', 'build', 'release', 'firmware', 'v', 'ver'] },
};

/** How many characters before a value are searched: about five words, presidio's default prefix. */
const WINDOW = 48;

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const longestFirst = (words: readonly string[]) => [...words].sort((a, b) => b.length - a.length).map(escape);

const patterns = new Map<PiiType, RegExp>();

function patternOf(type: PiiType): RegExp {
  let pattern = patterns.get(type);
  if (pattern) return pattern;
  const words = WORDS[type] ?? { for: [], against: [] };
  // An id word followed by "number" ("order number") is one phrase, so the generic "number" does not win.
  const against = words.against.length ? `(?<against>(?:${longestFirst(words.against).join('|')})(?: (?:number|no\\.?|nr|#))?)` : '(?!)';
  const support = words.for.length ? `(?<for>${longestFirst(words.for).join('|')})` : '(?!)';
  // Literal alternatives between word boundaries, over a window of WINDOW characters: bounded work.
  pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${against}|${support})(?![\\p{L}])`, 'gu');
  patterns.set(type, pattern);
  return pattern;
}

/** The polarity of the context word nearest before `index`, if any within about five words. */
export function contextOf(text: string, index: number, type: PiiType): Polarity | undefined {
  const window = text.slice(Math.max(0, index - WINDOW), index).toLowerCase();
  let nearest: Polarity | undefined;
  for (const match of window.matchAll(patternOf(type))) nearest = match.groups?.against !== undefined ? 'against' : 'for';
  return nearest;
}
