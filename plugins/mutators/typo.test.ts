import { describe, it, expect } from 'vitest';
import { createRng } from '../../core/domain/rng.ts';
import typo from './typo.ts';

const run = (text: string, seed: number, options: Record<string, unknown> = {}) => typo.mutate(text, { rng: createRng(seed), options }) as string;

/** Levenshtein distance with adjacent transpositions (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('mutator: typo', () => {
  it('makes about rate × letters slips, each one edit', () => {
    const text = 'the quick brown fox jumps over the lazy dog '.repeat(20);
    const letters = text.replace(/[^a-z]/g, '').length;
    const out = run(text, 1, { rate: 0.1 });
    const distance = editDistance(text, out);
    expect(distance).toBeGreaterThan(letters * 0.05);
    expect(distance).toBeLessThan(letters * 0.15);
  });

  it('slips at least once, and never with rate 0', () => {
    expect(run('Hi', 3, { rate: 0.0001 })).not.toBe('Hi');
    expect(run('Hello there', 3, { rate: 0 })).toBe('Hello there');
  });

  it('substitutes keyboard neighbours and keeps the case', () => {
    const out = run('A'.repeat(400), 2, { rate: 1 });
    expect(out).toMatch(/^[A-Z]+$/);
    expect(new Set(out.replace(/A/g, '')).size).toBeGreaterThan(0);
    expect([...new Set(out.replace(/A/g, ''))].every((char) => 'QWSZ'.includes(char))).toBe(true);
  });

  it('leaves digits, punctuation and non-Latin letters alone', () => {
    expect(run('42 € — 中文 !?', 1, { rate: 1 })).toBe('42 € — 中文 !?');
  });
});
