import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';
import { applyStateDiff, stateDiff } from './state-diff.ts';

/** What the trace keeps: JSON (no -0, no undefined). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('evaluation: shim state diffs', () => {
  it('turns any JSON value into any other when applied (RFC 6902, checked with fast-json-patch and our own apply)', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (before, after) => {
      const operations = stateDiff({ root: before }, { root: after });
      expect(asJson(applyStateDiff({ root: before }, operations))).toEqual(asJson({ root: after }));
      // fast-json-patch (an independent RFC 6902 implementation) bans __proto__ paths; elsewhere it must agree.
      if (!JSON.stringify(operations).includes('__proto__')) {
        expect(asJson(jsonpatch.applyPatch(structuredClone({ root: before }), operations as jsonpatch.Operation[], true, false).newDocument)).toEqual(asJson({ root: after }));
      }
    }), { numRuns: 1000 });
  });

  it('keeps keys an agent chose as plain keys: __proto__ and constructor change no prototype', () => {
    const before = JSON.parse('{"entries":{"a":1}}');
    const after = JSON.parse('{"entries":{"a":1,"__proto__":{"polluted":true},"constructor":2}}');
    const applied = applyStateDiff(before, stateDiff(before, after)) as any;
    expect(Object.hasOwn(applied.entries, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(applied.entries)).toBe(Object.prototype);
    expect(({} as any).polluted).toBeUndefined();
    expect(JSON.stringify(applied)).toBe(JSON.stringify(after));
  });

  it('costs what changed: shared parts are skipped, appends are adds, odd keys are escaped', () => {
    const shared = { big: Array.from({ length: 1000 }, (_, index) => ({ id: index })) };
    const before = { shared, list: [1, 2], map: { 'a/b~c': 1, keep: true } };
    const after = { shared, list: [1, 2, 3], map: { 'a/b~c': 2, keep: true, added: 'x' } };
    expect(stateDiff(before, after)).toEqual([
      { op: 'add', path: '/list/2', value: 3 },
      { op: 'replace', path: '/map/a~1b~0c', value: 2 },
      { op: 'add', path: '/map/added', value: 'x' },
    ]);
    expect(stateDiff(before, before)).toEqual([]);
  });
});
