import { describe, it, expect } from 'vitest';
import synonyms from 'synonyms';
import { createRng } from '../../core/domain/rng.ts';
import synonym, { thesaurusSize } from './synonym.ts';

const run = (text: string, seed: number, options: Record<string, unknown> = {}) => synonym.mutate(text, { rng: createRng(seed), options }) as string;

describe('mutator: synonym', () => {
  it('loads the thesaurus on first use, then mutates synonymously; indexes it both ways (over 25,000 words)', async () => {
    const first = synonym.mutate('The quick car stopped near the large house', { rng: createRng(1), options: {} });
    expect(await first).toBe(run('The quick car stopped near the large house', 1)); // same seed, same result, now synchronous
    expect(typeof run('The large house', 2)).toBe('string');
    expect(await thesaurusSize()).toBeGreaterThan(25_000);
  });

  it('replaces words with thesaurus synonyms', () => {
    const out = run('Please refund my purchase quickly', 2, { rate: 1 });
    const replaced = out.split(' ');
    expect(replaced[0]).toBe('Please');
    expect(replaced[2]).toBe('my');
    const refund = synonyms.dictionary.refund!;
    expect(Object.values(refund).flat()).toContain(replaced[1]!.toLowerCase());
  });

  it('keeps the case and punctuation of the replaced word', () => {
    for (let seed = 0; seed < 10; seed++) {
      const out = run('QUICKLY! Quickly, quickly.', seed, { rate: 1 });
      const [upper, title, lower] = out.split(' ');
      expect(upper).toMatch(/^[A-Z -]+!$/);
      expect(title).toMatch(/^[A-Z][a-z -]+,$/);
      expect(lower).toMatch(/^[a-z -]+\.$/);
    }
  });

  it('never replaces function words or parts of contractions', () => {
    expect(run("a the is don't I'm", 1, { rate: 1 })).toBe("a the is don't I'm");
  });

  it('prefers a verb after a pronoun and a noun after a determiner', () => {
    const sensesOf = (word: string, pos: string) =>
      new Set(Object.values(synonyms.dictionary).flatMap((entry) => (entry[pos]?.includes(word) ? entry[pos]! : [])));
    const verbs = sensesOf('pick', 'v');
    const nouns = sensesOf('pick', 'n');
    for (let seed = 0; seed < 10; seed++) {
      expect(verbs.has(run('I pick', seed, { rate: 1 }).split(' ')[1]!)).toBe(true);
      expect(nouns.has(run('the pick', seed, { rate: 1 }).split(' ')[1]!)).toBe(true);
    }
  });
});
