import { describe, it, expect } from 'vitest';
import { createRng } from '../../core/domain/rng.ts';
import jumble from './jumble.ts';

const run = (text: string, seed: number, options: Record<string, unknown> = {}) => jumble.mutate(text, { rng: createRng(seed), options }) as string;
const sorted = (word: string) => [...word].sort().join('');

describe('mutator: jumble', () => {
  it('scrambles inner letters, keeping first and last letters and punctuation', () => {
    const out = run('Understanding, reading: comprehension!', 4, { mode: 'letters', rate: 1 });
    expect(out).not.toBe('Understanding, reading: comprehension!');
    const [a, b, c] = out.split(' ');
    expect(a).toMatch(/^U.*g,$/);
    expect(sorted(a!)).toBe(sorted('Understanding,'));
    expect(b).toMatch(/^r.*g:$/);
    expect(c).toMatch(/^c.*n!$/);
    expect(sorted(c!)).toBe(sorted('comprehension!'));
  });

  it('keeps inner apostrophes in place', () => {
    for (let seed = 0; seed < 10; seed++) expect(run("neighbour's", seed, { mode: 'letters', rate: 1 })).toMatch(/^n[a-z]{8}'s$/);
  });

  it('swaps neighbouring words in words mode, keeping the punctuation where it was', () => {
    const out = run('one two three four five six.', 1, { mode: 'words', swap_rate: 0.5 });
    expect(out).not.toBe('one two three four five six.');
    expect(out.endsWith('.')).toBe(true);
    expect(out.replace('.', '').split(' ').sort()).toEqual(['five', 'four', 'one', 'six', 'three', 'two']);
  });

  it('refuses an unknown mode', () => {
    expect(() => run('text', 1, { mode: 'sideways' })).toThrow(/one of: letters, words, both/);
  });
});
