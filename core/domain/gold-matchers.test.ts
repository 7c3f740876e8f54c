import { describe, it, expect } from 'vitest';
import { goldMatcherErrors, hasGoldMatchers, isGoldMatcher, resolveGoldActions } from './gold-matchers.ts';

const charge = (args: Record<string, unknown>) => ({ name: 'payments.create_charge', arguments: args });

describe('gold matchers: free fields of a gold action', () => {
  it('knows a matcher by its only member', () => {
    expect(isGoldMatcher({ $regex: 'rent' })).toBe(true);
    expect(isGoldMatcher({ $any: true })).toBe(true);
    expect(isGoldMatcher({ $in: [1, 2] })).toBe(true);
    expect(isGoldMatcher({ $ref: '#/x' })).toBe(false);
    expect(isGoldMatcher({ $regex: 'a', flags: 'i' })).toBe(false);
    expect(hasGoldMatchers([charge({ customer: 'bob', meta: { tags: [{ $any: true }] } })])).toBe(true);
    expect(hasGoldMatchers([charge({ customer: 'bob' })])).toBe(false);
    expect(hasGoldMatchers(undefined)).toBe(false);
  });

  it('names each malformed matcher by its path: a bad pattern, a wrong operand, a matcher beside other members', () => {
    const errors = goldMatcherErrors({ description: { $regex: '(?<=rent)x' }, amount: { $in: [] }, key: { $any: 1 }, note: { $regex: 'a', flags: 'i' }, 'a/b': [{ $regex: '(' }], value: { $schema: 'x' } }, '/tasks/0/expected_actions/0/arguments');
    expect(errors.map((error) => error.path)).toEqual([
      '/tasks/0/expected_actions/0/arguments/description/$regex',
      '/tasks/0/expected_actions/0/arguments/amount/$in',
      '/tasks/0/expected_actions/0/arguments/key/$any',
      '/tasks/0/expected_actions/0/arguments/note',
      '/tasks/0/expected_actions/0/arguments/a~1b/0/$regex',
    ]);
    expect(errors[0].message).toMatch(/^is not a valid RE2 pattern \(no lookaround or backreferences\)/);
    expect(errors[3].message).toMatch(/^a matcher has one member \(\$regex beside flags\)/);
  });

  it('resolves a matched action to the agent\'s call, and leaves an unmatched one out: a reworded field passes, a wrong payee does not', () => {
    const gold = [charge({ customer: 'bob', amount: 900, description: { $regex: '(?i)rent' } })];
    const reworded = resolveGoldActions(gold, [charge({ customer: 'bob', amount: 900, description: 'March RENT for flat 2' })]);
    expect(reworded).toEqual({ actions: [charge({ customer: 'bob', amount: 900, description: 'March RENT for flat 2' })], unmatched: [] });
    expect(resolveGoldActions(gold, [charge({ customer: 'eve', amount: 900, description: 'rent' })]).unmatched).toEqual([0]);
    // A call the world refused, another tool, an extra argument, a non-string: no match.
    expect(resolveGoldActions(gold, [{ ...charge({ customer: 'bob', amount: 900, description: 'rent' }), error: { code: 'insufficient_funds' } }]).unmatched).toEqual([0]);
    expect(resolveGoldActions(gold, [{ name: 'payments.refund', arguments: { customer: 'bob', amount: 900, description: 'rent' } }]).unmatched).toEqual([0]);
    expect(resolveGoldActions(gold, [charge({ customer: 'bob', amount: 900, description: 'rent', idempotency_key: 'k' })]).unmatched).toEqual([0]);
    expect(resolveGoldActions(gold, [charge({ customer: 'bob', amount: 900, description: 7 })]).unmatched).toEqual([0]);
    // `$any` lets the argument be left out; `$in` needs one of its values; the function-calling spelling is the same tool.
    const loose = [{ name: 'payments__create_charge', arguments: { customer: { $in: ['bob', 'carol'] }, amount: 900, idempotency_key: { $any: true } } }];
    expect(resolveGoldActions(loose, [charge({ customer: 'carol', amount: 900 })]).unmatched).toEqual([]);
    expect(resolveGoldActions(loose, [charge({ customer: 'dave', amount: 900 })]).unmatched).toEqual([0]);
  });

  it('matches each call to one gold action at most, so a loose matcher never takes the call a strict one needs', () => {
    const gold = [charge({ customer: 'bob', amount: 1, description: { $any: true } }), charge({ customer: 'bob', amount: 1, description: { $regex: '^rent$' } })];
    const calls = [charge({ customer: 'bob', amount: 1, description: 'rent' }), charge({ customer: 'bob', amount: 1, description: 'other' })];
    const resolved = resolveGoldActions(gold, calls);
    expect(resolved.unmatched).toEqual([]);
    expect(resolved.actions.map((action) => action.arguments!.description)).toEqual(['other', 'rent']);
    // One call cannot meet two gold actions.
    expect(resolveGoldActions(gold, [calls[0]]).unmatched).toHaveLength(1);
    // Gold actions without matchers are kept as written, whatever the agent called.
    expect(resolveGoldActions([{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }], []).actions).toEqual([{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }]);
  });
});
