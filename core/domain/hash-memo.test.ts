/**
 * Hashes remembered by a value's JSON text (hash-memo.ts, issue 36, eighth sitting): a submission of a scenario
 * and agent seen before skips their canonical forms. Pins that the memo answers exactly what
 * `scenarioContentHash` and `agentConfigHash` compute, for a repeat, an agent change (not in the scenario's
 * hash), key order, a lone surrogate, two kinds of one text, and after it has forgotten entries.
 */
import { describe, expect, it } from 'vitest';
import { memoizedContentHash, scenarioContentHash } from './scenario-identity.ts';
import { agentConfigHash, memoizedConfigHash } from './agent-target.ts';
import type { Scenario } from './scenario.ts';

const scenario = (id: string, extra: Record<string, unknown> = {}) => ({
  id, title: 'T', industry: 'Fintech', use_case: 'Support', tags: [], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': 'ok' } }, topology: [],
  tasks: [{ id: 't1', input: 'balance?', metrics: [{ id: 'task_success' }] }], ...extra,
}) as unknown as Scenario;

describe('hash memo: hashes remembered by JSON text', () => {
  it('answers what scenarioContentHash computes, first and again', () => {
    const cases = [
      scenario('a'),
      scenario('a', { agent: { adapter: 'http', url: 'https://agent.example' } }),
      scenario('b', { title: 'lone \ud800 surrogate' }),
      scenario('b', { title: 'lone \ufffd surrogate' }),
      { ...scenario('c'), tasks: [{ metrics: [{ id: 'task_success' }], input: 'balance?', id: 't1' }] } as unknown as Scenario,
    ];
    for (let round = 0; round < 2; round++) {
      for (const entry of cases) expect(memoizedContentHash(entry)).toBe(scenarioContentHash(entry));
    }
    // The agent is not part of the content: two agents, one hash.
    expect(memoizedContentHash(cases[1]!)).toBe(memoizedContentHash(cases[0]!));
    expect(memoizedContentHash(cases[2]!)).toBe(memoizedContentHash(cases[3]!));
  });

  it('keeps each kind of hash apart: an agent spec and a scenario of one text', () => {
    // The scenario's hash leaves out `agent`, the agent's does not: one text, two hashes.
    const spec = { adapter: 'scripted', agent: { adapter: 'scripted' } } as unknown as Scenario;
    for (let round = 0; round < 2; round++) {
      expect(memoizedConfigHash(spec as never)).toBe(agentConfigHash(spec as never));
      expect(memoizedContentHash(spec)).toBe(scenarioContentHash(spec));
    }
    expect(agentConfigHash(spec as never)).not.toBe(scenarioContentHash(spec));
  });

  it('stays exact after forgetting its oldest entries', () => {
    const big = (n: number) => scenario(`big-${n}`, { title: 'x'.repeat(200_000) });
    for (let n = 0; n < 30; n++) expect(memoizedContentHash(big(n))).toBe(scenarioContentHash(big(n)));
    expect(memoizedContentHash(big(0))).toBe(scenarioContentHash(big(0)));
    expect(memoizedContentHash(scenario('a'))).toBe(scenarioContentHash(scenario('a')));
  });
});
