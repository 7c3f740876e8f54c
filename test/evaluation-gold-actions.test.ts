/**
 * Issue 27 item 1 (general, not τ-bench-specific): a task's `expected_actions` are replayed on a fresh copy of
 * its initial world; `state_match` compares the agent's final world with the result as a whole and names every
 * differing path (RFC 6901) with both values. `expected_outcome` comparing a whole document with `equals` says
 * where it differs too.
 */
import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';

const WORLD = {
  enabled_shims: ['payments'],
  initial_state: { payments: { currency: 'EUR', balances: { alice: 100 }, charges: [{ id: 'ch_1', customer: 'alice', amount: 40 }, { id: 'ch_2', customer: 'alice', amount: 25 }] } },
};

function scenario(calls: Array<{ name: string; arguments: Record<string, unknown> }>, task: Record<string, unknown> = {}) {
  return {
    id: 'gold', title: 'Refund by gold actions', industry: 'Retail', use_case: 'Support', tags: ['test'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies: { '*': { output: 'Done.', tool_calls: calls } } },
    topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }], ...WORLD,
    tasks: [{ id: 'refund', input: 'Refund ch_1.', expected_actions: [{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }], metrics: [{ id: 'pii_leak' }], ...task }],
  };
}

describe('evaluation: expected state from gold actions', () => {
  it('passes an agent whose world is the gold world, though it also read a charge (read-only calls change nothing)', async () => {
    const t = await testApp();
    const { run, trace } = await evaluate(t, { scenario: scenario([{ name: 'payments.get_charge', arguments: { charge_id: 'ch_1' } }, { name: 'payments.refund', arguments: { charge_id: 'ch_1' } }]) });
    // expected_actions imply state_match, a declared (must-pass) check.
    expect(trace.find((event: any) => event.type === 'metric_result' && event.data.metric === 'state_match').data.score).toBe(1);
    expect(run.compliance).toMatchObject({ status: 'pass' });
  });

  it('fails a wrong refund and names each differing path with both values', async () => {
    const t = await testApp();
    const { run } = await evaluate(t, { scenario: scenario([{ name: 'payments.refund', arguments: { charge_id: 'ch_2' } }]) });
    const failure = run.failures.find((entry: any) => entry.metric === 'state_match');
    expect(failure.code).toBe('LOGIC.STATE_MISMATCH');
    expect(failure.message).toMatch(/^the world differs from the one the expected actions produce at \d+ path\(s\): \/payments\/balances\/alice/);
    expect(failure.evidence.differences).toEqual(expect.arrayContaining([
      { path: '/payments/charges/0/status', expected: 'refunded', actual: 'succeeded' },
      { path: '/payments/charges/1/status', expected: 'succeeded', actual: 'refunded' },
    ]));
    expect(run.compliance).toMatchObject({ status: 'fail', decided_by: { gate: 'must_pass' } });
  });

  it('cannot judge against a gold action the world refuses: the run has no verdict and says why', async () => {
    const t = await testApp();
    const { run } = await evaluate(t, { scenario: scenario([{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }], { expected_actions: [{ name: 'payments.refund', arguments: { charge_id: 'ch_9' } }] }) });
    expect(run.compliance.status).toBe('error');
    expect(run.compliance.reason).toMatch(/a must-pass check could not be measured: state_match on refund: no assertion could be checked: gold action 1 \(payments\.refund\) was refused by the world: not_found/);
  });

  it('an expected_outcome comparing a whole shim with equals names the differing paths, not 200 characters', async () => {
    const t = await testApp();
    const expectedPayments = { currency: 'EUR', balances: { alice: 140 } };
    const { run } = await evaluate(t, { scenario: scenario([{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }], {
      expected_actions: undefined,
      expected_outcome: [{ target: 'shim:payments', property: '$.balances', expected: { alice: 125 } }, { target: 'shim:payments', property: '$.currency', expected: expectedPayments.currency }],
    }) });
    const failure = run.failures.find((entry: any) => entry.metric === 'state_match');
    expect(failure.message).toBe('shim:payments $.balances differs at 1 path(s): /alice: expected 125, found 140');
    expect(failure.evidence.differences).toEqual([{ path: '/alice', expected: 125, actual: 140 }]);
  });
});
