import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { graphemes, isLoneAsciiLetter, pickPositions, rateOption, choiceOption } from './text.ts';
import { matchCase } from '../../core/mutator.ts';
import { createRng } from '../../core/domain/rng.ts';
import { Problem } from '../../core/problems.ts';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const reference = (text: string) => Array.from(segmenter.segment(text), (part) => part.segment);

/** Pieces that exercise every rule the regex path implements (GB3-5, GB9, GB11, GB12-13). */
const PIECES = ['a', 'e\u0301', '\u0301', '\u200d', '\u200c', '\u200b', '\u2060', '\ufeff', '👨', '👩', '🏽', '🇫', '🇷', '1', '\ufe0f', '\u20e3', '🏳', '🌈', '\r', '\n', ' ', '中', 'ア', '\uff9e', 'Я', 'ب', '\u064b', '\u{e0067}', '\u{e007f}', '🏴', '\u00ad', '❤'];

describe('core: mutator text helpers', () => {
  it('splits into the same grapheme clusters as Intl.Segmenter (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(graphemes(text)).toEqual(reference(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('falls back to Intl.Segmenter for Indic conjuncts, prepend marks and Hangul jamo', () => {
    for (const text of ['क्षत्रिय नमस्ते', 'ലോകം', '\u1100\u1161\u11a8 한국어', '\u0600\u0661']) expect(graphemes(text)).toEqual(reference(text));
  });

  it('segments long text in windows without losing or splitting a cluster', () => {
    const text = `${'🇫🇷'.repeat(400)}a${'\u0301'.repeat(1500)} क्ष`.repeat(3);
    expect(graphemes(text)).toEqual(reference(text));
    expect(graphemes('ab\r\ncd')).toEqual(['a', 'b', '\r\n', 'c', 'd']);
  });

  it('touches only ASCII letters that stand alone', () => {
    expect(isLoneAsciiLetter('ab', 0)).toBe(true);
    expect(isLoneAsciiLetter('e\u0301', 0)).toBe(false);
    expect(isLoneAsciiLetter('1', 0)).toBe(false);
    expect(isLoneAsciiLetter('\u200dx', 1)).toBe(false);
  });

  it('copies UPPER, Capitalised and lower case', () => {
    expect(matchCase('HELLO', 'greeting')).toBe('GREETING');
    expect(matchCase('Hello', 'greeting')).toBe('Greeting');
    expect(matchCase('hello', 'greeting')).toBe('greeting');
    expect(matchCase('A', 'b')).toBe('B');
  });

  it('picks at least one position unless told otherwise', () => {
    expect(pickPositions(5, 0.0001, createRng(1)).size).toBe(1);
    expect(pickPositions(5, 0.0001, createRng(1), false).size).toBe(0);
    expect(pickPositions(0, 1, createRng(1)).size).toBe(0);
    expect(pickPositions(5, 1, createRng(1)).size).toBe(5);
  });

  it('refuses bad options with a 400 naming them', () => {
    expect(rateOption({}, 'rate', 0.2)).toBe(0.2);
    for (const bad of [-0.1, 1.5, '0.5', Number.NaN]) {
      try {
        rateOption({ rate: bad }, 'rate', 0.2);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(Problem);
        expect((error as Problem).errors).toEqual([{ path: '/options/rate', message: 'must be a number from 0 to 1' }]);
      }
    }
    expect(() => choiceOption({ mode: 'x' }, 'mode', ['a', 'b'] as const, 'a')).toThrow(/one of: a, b/);
  });
});
