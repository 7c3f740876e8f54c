import { describe, it, expect } from 'vitest';
import { checkAssertion, type AssertionSubject } from './assertions.ts';
import { parsePath, select } from './json-path.ts';

const subject: AssertionSubject = {
  message: 'Refund of 19.99 EUR issued for order ord_7.',
  tool_calls: [
    { name: 'orders.get_order', arguments: { order_id: 'ord_7' }, result: { status: 'delivered' } },
    { name: 'payments.refund', arguments: { charge_id: 'ch_1', amount: 19.99 }, result: { id: 're_500' } },
  ],
  shims: { payments: { balances: { alice: 100 }, charges: [{ id: 'ch_1', status: 'refunded', refunded: 19.99 }], refunds: [{ id: 're_500', charge_id: 'ch_1' }] } },
};

describe('metrics: json paths', () => {
  it('reads members, indexes, wildcards and JSON pointers, and refuses what it cannot parse', () => {
    expect(select({ a: [{ b: 1 }, { b: 2 }] }, parsePath('$.a[*].b'))).toEqual([1, 2]);
    expect(select({ a: [{ b: 1 }, { b: 2 }] }, parsePath('a[-1].b'))).toEqual([2]);
    expect(select({ 'a b': { c: 3 } }, parsePath("$['a b'].c"))).toEqual([3]);
    expect(select({ a: [5, 6] }, parsePath('/a/1'))).toEqual([6]);
    expect(select({ a: 1 }, parsePath('$.constructor'))).toEqual([]);
    expect(() => parsePath('$.a[?(@.b > 1)]')).toThrow(/cannot read/);
  });
});

describe('metrics: outcome assertions', () => {
  it('checks shim state, tool calls and the message in every mode', () => {
    const cases: Array<[Parameters<typeof checkAssertion>[0], boolean | null]> = [
      [{ target: 'shim:payments', property: '$.charges[0].status', expected: 'refunded' }, true],
      [{ target: 'shim:payments', property: '$.charges[0].status', expected: 'succeeded', mode: 'exact' }, false],
      [{ target: 'shim:payments', property: 'refunds', expected: 1, mode: 'count' }, true],
      [{ target: 'shim:payments', property: 'balances.alice', expected: 100, mode: 'gte' }, true],
      [{ target: 'shim:payments', property: 'balances.alice', expected: 99.995, mode: 'numerical_tolerance' }, true],
      [{ target: 'shim:payments', property: 'charges[*].id', expected: 'ch_1', mode: 'equals' }, true],
      [{ target: 'tool_calls', where: { name: 'payments.refund' }, expected: 1, mode: 'count' }, true],
      [{ target: 'tool_calls', where: { name: 'payments.create_charge' }, mode: 'absent' }, true],
      [{ target: 'tool_calls', property: '[*].arguments', expected: { charge_id: 'ch_1' }, mode: 'contains' }, true],
      [{ target: 'message', expected: 'refund of 19.99', mode: 'contains' }, true],
      [{ target: 'message', expected: '\\bord_\\d+', mode: 'regex' }, true],
      [{ target: 'shim:calendar', property: 'events', mode: 'exists' }, null],
      [{ target: 'shim:payments', property: '$..x', mode: 'exists' }, null],
      [{ target: 'message', expected: '(a+)+$', mode: 'regex' }, false],
      [{ target: 'shim:payments', property: 'charges[*].status', expected: 'succeeded', mode: 'absent' }, true],
      [{ target: 'shim:payments', property: 'charges[*].status', expected: 'refunded', mode: 'absent' }, false],
    ];
    for (const [assertion, passed] of cases) expect(checkAssertion(assertion, subject).passed, JSON.stringify(assertion)).toBe(passed);
  });

  it('says what it found when an assertion fails', () => {
    const outcome = checkAssertion({ target: 'shim:payments', property: 'charges[0].refunded', expected: 10 }, subject);
    expect(outcome).toMatchObject({ passed: false, actual: 19.99 });
    expect(outcome.detail).toMatch(/found 19.99/);
  });
});
