/**
 * Hostile inputs for the patterns spec-to-eval runs over a PRD's text (issue 13). Each case was quadratic
 * (or worse) before, on inputs like these; the assertion is that it completes, and gives the same answer as
 * before on ordinary text, not a time.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitExpectSuffix } from './task-fields.ts';
import { parseCriteria } from './metrics-choice.ts';
import { normalizeTitle } from './sections.ts';
import { labelKey } from './labels.ts';
import { createFindingLog } from './pitfalls.ts';

const RUN = 500_000;

describe('spec-to-eval: hostile text', () => {
  it('splitExpectSuffix keeps its answers', () => {
    expect(splitExpectSuffix('Accept the return (Expect: "accepted").')).toEqual({ text: 'Accept the return', expected: '"accepted"' });
    expect(splitExpectSuffix('Book it (expected: a (cheap) flight) ')).toEqual({ text: 'Book it', expected: 'a (cheap) flight' });
    expect(splitExpectSuffix('Nested (expect: a ((b)) c)')).toEqual({ text: 'Nested (expect: a ((b)) c)' });
    expect(splitExpectSuffix('(expect: )')).toEqual({ text: '', expected: '' });
    expect(splitExpectSuffix('Plain text (note)')).toEqual({ text: 'Plain text (note)' });
  });

  it('splitExpectSuffix is linear in the number of (expect: …) on a line', () => {
    expect(splitExpectSuffix(`${'(expect: x) '.repeat(RUN / 10)}!`).expected).toBeUndefined();
    expect(splitExpectSuffix(`${' '.repeat(RUN)}(expect: x)${' '.repeat(RUN)}.${' '.repeat(RUN)}`).expected).toBe('x');
  });

  it('parseCriteria refuses an overlong item without matching it', () => {
    const log = createFindingLog();
    expect(parseCriteria(`a${' '.repeat(RUN)}!`, 3, new Set(['refusal']), log)).toEqual([]);
    expect(log.warnings[0]?.code).toBe('criteria_malformed');
  });

  it('titles and label names trim long trailing runs linearly', () => {
    expect(normalizeTitle(`3. Tasks${' :.'.repeat(RUN)}x`)).toMatch(/^tasks/);
    expect(normalizeTitle(`Test cases${': '.repeat(RUN)}`)).toBe('test cases');
    expect(labelKey(`Industry${': '.repeat(RUN)}`)).toBe('industry');
  });

  it('the line helpers complete on adversarial text (property)', () => {
    const pieces = fc.constantFrom('(', ')', 'expect:', ' ', ':', '.', '-', '—', 'a', '1', '\t');
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 1, maxLength: 8 }), fc.integer({ min: 30, max: 20_000 }), (parts, repeats) => {
        const text = parts.join('').repeat(repeats);
        splitExpectSuffix(text);
        normalizeTitle(text);
        labelKey(text);
        parseCriteria(text.slice(0, 10_000), 1, new Set(['refusal']), createFindingLog());
      }),
      { numRuns: 60 },
    );
  });
});
