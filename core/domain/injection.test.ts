import { describe, it, expect } from 'vitest';
import { injectionRuleErrors, initialStateOf, placeholdersIn, renderInjections, withVectorTexts } from './injection.ts';
import type { Scenario } from './scenario.ts';

const scenario = (over: Partial<Scenario> = {}) => ({
  id: 's', title: 't', industry: 'i', use_case: 'u', tags: [], policy_ref: 'p', agent: { adapter: 'scripted' }, topology: [], tasks: [],
  enabled_shims: ['kv'], initial_state: { kv: { entries: { 'a/b': 'x {{injection:one}} y', list: ['{{injection:two}}', '{{injection:one}}'] } } },
  injection_vectors: { one: { default: '1' }, two: { default: '2' } }, ...over,
}) as Scenario;

describe('injection vectors', () => {
  it('finds placeholders with the JSON Pointer of their string', () => {
    expect(placeholdersIn({ kv: { entries: { 'a/b': '{{injection:one}}' } } }, '/initial_state')).toEqual([{ name: 'one', path: '/initial_state/kv/entries/a~1b' }]);
  });

  it('renders in one pass: text planted in a vector is not read for placeholders again', () => {
    expect(renderInjections({ a: ['{{injection:one}}!'] }, { one: '{{injection:two}}', two: 'no' })).toEqual({ a: ['{{injection:two}}!'] });
    expect(renderInjections('{{ injection:one }} {{injection:unknown}}', { one: 'x' })).toBe('{{ injection:one }} {{injection:unknown}}');
  });

  it('builds the world from defaults, and an attacked copy from its texts', () => {
    expect(initialStateOf(scenario(), 'kv')).toEqual({ entries: { 'a/b': 'x 1 y', list: ['2', '1'] } });
    expect(initialStateOf(withVectorTexts(scenario(), { two: 'ATTACK' }), 'kv')).toEqual({ entries: { 'a/b': 'x 1 y', list: ['ATTACK', '1'] } });
  });

  it('refuses an undeclared vector where it is written and an unused one where it is declared', () => {
    const errors = injectionRuleErrors(scenario({ injection_vectors: { one: { default: '' }, spare: { default: '' } } }));
    expect(errors.map((error) => error.path)).toEqual(['/initial_state/kv/entries/list/0', '/injection_vectors/spare']);
  });
});
