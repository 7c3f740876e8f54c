import { describe, it, expect } from 'vitest';
import { pointerCovered, pointerPatternError, pointerSegments } from './pointer-patterns.ts';

describe('pointer patterns: RFC 6901 pointers with * segments', () => {
  it('checks the syntax: empty or a leading "/", "~" only as ~0 or ~1', () => {
    expect(pointerPatternError('/email/messages/*/read')).toBeUndefined();
    expect(pointerPatternError('')).toBeUndefined();
    expect(pointerPatternError('/a~0b/c~1d')).toBeUndefined();
    expect(pointerPatternError('email/messages')).toMatch(/must be empty or start with "\/"/);
    expect(pointerPatternError('/a~2')).toMatch(/"~" at 2 must be followed by 0 or 1/);
    expect(pointerPatternError('/a~')).toMatch(/"~" at 2/);
  });

  it('unescapes segments as RFC 6901 says (~1 before ~0)', () => {
    expect(pointerSegments('/a~1b/c~0d/~01')).toEqual(['a/b', 'c~d', '~1']);
    expect(pointerSegments('')).toEqual([]);
    expect(pointerSegments('/')).toEqual(['']);
  });

  it('covers the path it names and everything under it; * stands for one segment', () => {
    const patterns = ['/email/messages/*/read', '/sql/queries'];
    expect(pointerCovered(patterns, '/email/messages/0/read')).toBe(true);
    expect(pointerCovered(patterns, '/email/messages/12/read')).toBe(true);
    expect(pointerCovered(patterns, '/email/messages/0/folder')).toBe(false);
    expect(pointerCovered(patterns, '/email/messages/0')).toBe(false);
    expect(pointerCovered(patterns, '/sql/queries/3/read/0')).toBe(true);
    expect(pointerCovered(patterns, '/sql/tables')).toBe(false);
    expect(pointerCovered(['/*/counters'], '/payments/counters/ch')).toBe(true);
    expect(pointerCovered([], '/a')).toBe(false);
  });
});
