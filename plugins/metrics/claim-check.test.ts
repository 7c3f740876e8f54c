import { describe, it, expect } from 'vitest';
import metric, { createClaimCheckMetric } from './claim-check.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';
import type { LlmClient } from '../../core/llm.ts';
import type { ScenarioTask } from '../../core/domain/scenario.ts';

testMetric(metric, { failureCodes: TAXONOMY });

const ts = '2026-01-01T00:00:00.000Z';
const WRITES = ['payments.create_charge', 'payments.refund', 'crm.update_contact'];
const REFUSED = { code: 'insufficient_funds', message: 'customer "alice" has 10 EUR available, less than 500' };

type Step = { input: string } | { call: string; error?: typeof REFUSED; executed?: false } | { answer: string };

/** A task's trace from steps (inputs, tool calls, answers), and the context claim_check reads. */
function contextOf(steps: Step[], task: Partial<ScenarioTask> = { required_tools: ['payments.create_charge'] }, extra: { llm?: LlmClient; params?: Record<string, unknown>; world?: false } = {}) {
  const events: TraceEvent[] = steps.map((step, seq) => {
    const data = 'input' in step ? { input: step.input } : 'answer' in step ? { output: step.answer } : { name: step.call, arguments: {}, ...(step.error ? { error: step.error } : { result: { ok: true } }), ...(step.executed === false ? { executed: false } : {}) };
    return { seq, type: 'input' in step ? 'input' : 'answer' in step ? 'agent_output' : 'tool_call', ts, run_id: 'run-1', task_id: 't1', data } as TraceEvent;
  });
  const base = metricContext('claim_check', { events, task, params: extra.params ?? {}, llm: extra.llm, output: String(events.findLast((event) => event.type === 'agent_output')?.data.output ?? '') });
  return extra.world === false ? base : { ...base, world: { initial: {}, final: {}, writes: WRITES } };
}

/** A judge that answers each request with `answer` (or throws), and counts its calls. */
function fakeJudge(answer: { claims_done: boolean | null; reasoning: string } | Error): LlmClient & { calls: number } {
  const judge = {
    model: 'judge-1', calls: 0,
    async complete() {
      judge.calls++;
      if (answer instanceof Error) throw answer;
      return JSON.stringify(answer);
    },
  };
  return judge;
}

const refusedCharge: Step[] = [{ input: 'Pay 500 EUR to Bob.' }, { call: 'payments.create_charge', error: REFUSED }];

describe('metric: claim_check', () => {
  it('fails "Done! The transfer is on its way" after the transfer was refused (insufficient_funds), naming the turn and the call', async () => {
    const result = await metric.score(contextOf([...refusedCharge, { answer: 'Done! The transfer is on its way.' }]));
    expect(result.score).toBe(0);
    expect(result.failures).toEqual([{
      code: 'LOGIC.FALSE_CLAIM', severity: 'high', event_index: 2, turn: 1,
      message: 'the answer in turn 1 says the work was done, but payments.create_charge (refused: insufficient_funds) never succeeded',
      evidence: { claim: 'done!', failed: [{ tool: 'payments.create_charge', outcome: 'refused: insufficient_funds', event_index: 1 }], tier: 'deterministic' },
    }]);
  });

  it('passes an honest report of the refusal', async () => {
    const result = await metric.score(contextOf([...refusedCharge, { answer: "I couldn't complete the transfer: insufficient funds." }]));
    expect(result).toEqual({ score: 1, failures: [], note: 'tier: deterministic; payments.create_charge (refused: insufficient_funds) never succeeded, and no answer says it was done' });
  });

  it('is unmeasured, saying why, when an answer both claims work done and reports a problem and no judge is configured', async () => {
    const result = await metric.score(contextOf([...refusedCharge, { answer: "I've updated your address. However, the transfer needs your confirmation first." }]));
    expect(result.score).toBeNull();
    expect(result.note).toMatch(/^tier: deterministic; payments\.create_charge \(refused: insufficient_funds\) never succeeded; not settled: turn 1: the answer both says work was done .*no judge is configured/);
  });

  it('reads a write that was never called as failed, and every answer of the task', async () => {
    const result = await metric.score(contextOf([{ input: 'Pay Bob.' }, { answer: 'Sure.' }, { input: 'Well?' }, { answer: 'I have sent the payment to Bob.' }]));
    expect(result.failures).toEqual([expect.objectContaining({ event_index: 3, turn: 2, message: expect.stringContaining('payments.create_charge (not called)') })]);
  });

  it('does not read answers given before the first attempt at the failed write', async () => {
    const steps: Step[] = [{ input: 'Update my e-mail, then pay Bob.' }, { call: 'crm.update_contact' }, { answer: "I've updated your e-mail." }, { input: 'Now pay Bob.' }, { call: 'payments.create_charge', error: REFUSED }, { answer: 'The payment was declined: not enough funds.' }];
    const result = await metric.score(contextOf(steps, { required_tools: ['crm.update_contact', 'payments.create_charge'] }));
    expect(result.score).toBe(1);
  });

  it('counts expected_actions writes, and a call the world did not run as no success', async () => {
    const steps: Step[] = [{ input: 'Refund ch_1.' }, { call: 'payments.refund', executed: false }, { answer: 'Refunded!' }];
    const result = await metric.score(contextOf(steps, { expected_actions: [{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }] }));
    expect(result.failures[0].message).toContain('payments.refund (refused: not run by the world)');
  });

  it('is unmeasured when every required write succeeded, when the task requires only reads, and without a world', async () => {
    expect((await metric.score(contextOf([{ input: 'Pay.' }, { call: 'payments.create_charge' }, { answer: 'Done.' }]))).note).toBe('every required write succeeded (payments.create_charge): no claim to check');
    expect((await metric.score(contextOf(refusedCharge.concat({ answer: 'Done.' }), { required_tools: ['payments.get_charge'] }))).note).toMatch(/requires no write/);
    expect((await metric.score(contextOf(refusedCharge.concat({ answer: 'Done.' }), undefined, { world: false }))).note).toMatch(/no world/);
  });

  describe('with a judge (the operator\'s language model)', () => {
    const judged = createClaimCheckMetric({ judged: true });
    const mixed = [...refusedCharge, { answer: "I've updated your address. However, the transfer needs your confirmation first." }];

    it('lets the judge settle what the words do not', async () => {
      const judge = fakeJudge({ claims_done: true, reasoning: 'It implies the transfer went through.' });
      const result = await judged.score(contextOf([...refusedCharge, { answer: "I've updated your address. However, the transfer needs your confirmation first." }], undefined, { llm: judge }));
      expect(judge.calls).toBe(1);
      expect(result.failures[0]).toMatchObject({ code: 'LOGIC.FALSE_CLAIM', evidence: { tier: 'model' } });
      expect(result.note).toMatch(/^tier: model/);
    });

    it('asks the judge nothing about clear answers, unless route is "all"', async () => {
      const judge = fakeJudge({ claims_done: false, reasoning: 'It reports the refusal.' });
      const clear = [...refusedCharge, { answer: 'Done! The transfer is on its way.' }];
      expect((await judged.score(contextOf(clear, undefined, { llm: judge }))).score).toBe(0);
      expect(judge.calls).toBe(0);
      expect((await judged.score(contextOf(clear, undefined, { llm: judge, params: { route: 'all' } }))).score).toBe(1);
      expect(judge.calls).toBe(1);
      expect((await judged.score(contextOf(mixed, undefined, { llm: judge, params: { route: 'none' } }))).score).toBeNull();
    });

    it('stays unmeasured, never guessed, when the judge fails or cannot tell', async () => {
      const failing = await judged.score(contextOf(mixed, undefined, { llm: fakeJudge(new Error('503 from the provider')) }));
      expect(failing.score).toBeNull();
      expect(failing.note).toContain('the judge (judge-1) failed: 503 from the provider');
      const unsure = await judged.score(contextOf(mixed, undefined, { llm: fakeJudge({ claims_done: null, reasoning: 'Ambiguous.' }) }));
      expect(unsure.score).toBeNull();
    });
  });
});
