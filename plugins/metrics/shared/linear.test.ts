/**
 * The detectors' RE2 patterns compile on first use (start-up time, issue 26 item 9); this checks that every
 * pattern the bundled metrics define compiles, so none can fail the first answer that opens its gate.
 */
import { describe, it, expect } from 'vitest';
import metrics from '../index.ts';
import { compileAllPatterns, linear } from './linear.ts';

describe('linear patterns', () => {
  it('every pattern of the bundled metrics compiles', () => {
    expect(metrics.name).toBe('metrics');
    expect(compileAllPatterns()).toBeGreaterThan(100);
  });

  it('compiles on first use: a pattern RE2 refuses throws there, not where it is defined', () => {
    const lookahead = linear('a(?=b)');
    expect(lookahead.source).toBe('a(?=b)');
    expect(() => lookahead.test('ab')).toThrow();
    const word = linear('\\bcan(?:no|\')t\\b');
    expect(word.find('i cannot', 0)).toEqual({ index: 2, text: 'cannot' });
    expect(word.test('i can')).toBe(false);
  });
});
