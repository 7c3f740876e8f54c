import { describe, it, expect } from 'vitest';
import { describeDifferences, jsonDifferences } from './json-diff.ts';
import { pointerTrie } from './pointer-patterns.ts';

describe('json-diff: where two documents differ, as RFC 6901 pointers', () => {
  it('names each differing path with both values, in document order', () => {
    const expected = { payments: { charges: [{ id: 'ch_1', status: 'refunded' }, { id: 'ch_2', status: 'succeeded' }], 'a/b~c': 1 }, crm: { notes: [] } };
    const actual = { payments: { charges: [{ id: 'ch_1', status: 'succeeded' }, { id: 'ch_2', status: 'refunded' }], 'a/b~c': 2 }, crm: { notes: [{ text: 'hi' }] }, extra: true };
    expect(jsonDifferences(expected, actual)).toEqual([
      { path: '/payments/charges/0/status', expected: 'refunded', actual: 'succeeded' },
      { path: '/payments/charges/1/status', expected: 'succeeded', actual: 'refunded' },
      { path: '/payments/a~1b~0c', expected: 1, actual: 2 },
      { path: '/crm/notes/0', actual: { text: 'hi' } },
      { path: '/extra', actual: true },
    ]);
  });

  it('finds nothing in equal documents, and stops at its limit', () => {
    expect(jsonDifferences({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
    const wide = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`k${index}`, index]));
    expect(jsonDifferences(wide, {}, 10)).toHaveLength(10);
    expect(jsonDifferences('x', 'y')).toEqual([{ path: '', expected: 'x', actual: 'y' }]);
  });

  it('describes the first differences in words', () => {
    const differences = jsonDifferences({ a: 1, b: 'x'.repeat(200), c: 3, d: 4 }, { a: 2, b: 'y', d: 5 });
    expect(describeDifferences(differences, 2)).toBe(`/a: expected 1, found 2; /b: expected "${'x'.repeat(79)}…, found "y"; 2 more`);
  });

  it('leaves out what ignore patterns cover, `*` for any member or element, before the limit counts', () => {
    const expected = { email: { messages: [{ id: 'm1', read: false }, { id: 'm2', read: false }] }, sql: { queries: [] } };
    const actual = { email: { messages: [{ id: 'm1', read: true }, { id: 'm2', read: true }, { id: 'm3', read: true }] }, sql: { queries: [{ sql: 'SELECT 1' }] } };
    const ignore = pointerTrie(['/email/messages/*/read', '/sql/queries']);
    // A message only one side has is no read flag: it still differs.
    expect(jsonDifferences(expected, actual, 1000, ignore)).toEqual([{ path: '/email/messages/2', actual: { id: 'm3', read: true } }]);
    expect(jsonDifferences(expected, actual, 1, ignore)).toHaveLength(1);
    // A member only one side has, under a covered path, is ignored too.
    expect(jsonDifferences({ a: { b: 1 } }, { a: {} }, 1000, pointerTrie(['/a/b']))).toEqual([]);
    expect(jsonDifferences({ a: {} }, { a: { b: 1 } }, 1000, pointerTrie(['/a/*']))).toEqual([]);
    expect(jsonDifferences({ a: 1 }, { a: 2 }, 1000, pointerTrie(['']))).toEqual([]);
    expect(jsonDifferences({ 'a/b': 1, c: 1 }, { 'a/b': 2, c: 2 }, 1000, pointerTrie(['/a~1b']))).toEqual([{ path: '/c', expected: 1, actual: 2 }]);
  });
});
