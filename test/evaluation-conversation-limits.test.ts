/**
 * Issue 34 item 1: τ-bench's conversation rules as scenario options anyone may use — the agent greets first
 * (`user_simulator.greeting`), a step limit and a tool-error limit counted as τ-bench's orchestrator counts them
 * (`max_steps`, `max_errors`), and the `conversation_end` metric that fails a conversation a limit ended.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';
import { evaluate } from './evaluation-fixtures.ts';

const llm = setupServer();
beforeAll(() => llm.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => llm.resetHandlers());
afterAll(() => llm.close());
const LLM_ENV = { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'sim', AEH_ALLOW_HOSTS: 'llm.test' };

/** The simulated user: answers from `lines` in turn, then `###STOP###`; records every prompt. */
function user(lines: string[]) {
  const prompts: any[] = [];
  llm.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
    const body = await request.json() as any;
    prompts.push(body);
    const content = lines[prompts.length - 1] ?? '###STOP###';
    return HttpResponse.json({ choices: [{ message: { role: 'assistant', content } }] });
  }));
  return prompts;
}

/** An agent that books on a date it is given (one tool call), answers anything else, and may call a missing tool. */
function bookingAgent(options: { broken?: boolean } = {}) {
  const seen: Array<{ input: string; history: unknown[] }> = [];
  const plugin: Plugin = {
    name: 'booking-agent',
    setup(host) {
      host.agents.register({
        name: 'booking',
        description: 'test: books on the date it is given',
        async call(input, context) {
          seen.push({ input, history: context.history.slice() });
          if (options.broken) await context.tools!.call('payments.no_such_tool', {});
          const date = /\d{4}-\d{2}-\d{2}/.exec(input)?.[0];
          if (!date) return { output: 'Which date would you like to fly?' };
          await context.tools!.call('payments.create_charge', { customer: 'alice', amount: 250, idempotency_key: 'booking' });
          return { output: `Booked for ${date}.` };
        },
      }, 'booking-agent');
    },
  };
  return { seen, plugin };
}

function scenario(simulator: Record<string, unknown>, input = '') {
  return {
    id: 'limits', title: 'A conversation under τ-bench rules', industry: 'Travel', use_case: 'Booking', tags: ['conversation'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'booking' }, topology: [],
    enabled_shims: ['payments'], initial_state: { payments: { currency: 'EUR', balances: { alice: 1000 } } },
    tasks: [{
      id: 'book', input, metrics: [{ id: 'state_match' }, { id: 'conversation_end' }],
      expected_outcome: [{ target: 'shim:payments', property: 'balances.alice', expected: 750 }],
      user_simulator: { instructions: 'You are Alice. You want a flight to Lisbon on 2026-12-24.', greeting: 'Hi! How can I help you today?', ...simulator },
    }],
  };
}

const endOf = (trace: any[]) => trace.find((event: any) => event.type === 'conversation_end').data;

describe('evaluation: τ-bench conversation rules (issue 34)', () => {
  it('opens with the agent\'s greeting: the simulated user answers it, and the agent gets it as its own first turn', async () => {
    const prompts = user(['I need a flight to Lisbon.', 'On 2026-12-24, please.']);
    const agent = bookingAgent();
    const t = await testApp({ plugins: [agent.plugin], env: LLM_ENV });
    const { run, trace } = await evaluate(t, { scenario: scenario({ max_steps: 200, max_errors: 10 }) });
    expect(prompts[0].messages.slice(1)).toEqual([{ role: 'user', content: 'Hi! How can I help you today?' }]);
    expect(agent.seen[0]).toEqual({ input: 'I need a flight to Lisbon.', history: [{ role: 'assistant', content: 'Hi! How can I help you today?' }] });
    expect(trace.filter((event: any) => event.type === 'input').map((event: any) => event.data)).toEqual([
      { input: 'I need a flight to Lisbon.', greeting: 'Hi! How can I help you today?', simulated: true },
      { input: 'On 2026-12-24, please.', simulated: true, turn: 2 },
    ]);
    // user 1 + answer 1, user 1 + a tool round 2 + answer 1, the closing ###STOP### 1.
    expect(endOf(trace)).toEqual({ turns: 2, ended_by: 'simulator', steps: 7, tool_errors: 0 });
    expect(run.compliance.status).toBe('pass');
  });

  it('refuses a greeting beside an input of its own, naming the field', async () => {
    const t = await testApp({ plugins: [bookingAgent().plugin], env: LLM_ENV });
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: scenario({}, 'I want to fly.') } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual({ path: '/tasks/0/input', message: expect.stringContaining('"input" must be empty') });
  });

  it('counts the closing message as a step: at the step limit the conversation fails (τ-bench: reward 0), one step more passes', async () => {
    user(['I need a flight to Lisbon.', 'On 2026-12-24, please.']);
    const t = await testApp({ plugins: [bookingAgent().plugin], env: LLM_ENV });
    const cut = await evaluate(t, { scenario: scenario({ max_steps: 7 }) });
    expect(endOf(cut.trace)).toEqual({ turns: 2, ended_by: 'step_limit', steps: 7, tool_errors: 0 });
    // The world is right; the conversation was not finished within its steps.
    expect(cut.run.compliance.status).toBe('fail');
    const failure = cut.trace.find((event: any) => event.type === 'metric_result' && event.data.metric === 'conversation_end').data.failures[0];
    expect(failure).toMatchObject({ code: 'LOGIC.CONVERSATION_LIMIT', severity: 'high', evidence: { ended_by: 'step_limit', steps: 7 } });
    user(['I need a flight to Lisbon.', 'On 2026-12-24, please.']);
    const t2 = await testApp({ plugins: [bookingAgent().plugin], env: LLM_ENV });
    const within = await evaluate(t2, { scenario: scenario({ max_steps: 8 }) });
    expect(endOf(within.trace)).toMatchObject({ ended_by: 'simulator', steps: 7 });
    expect(within.run.compliance.status).toBe('pass');
  });

  it('a user who never ends the conversation fails at the step limit; with max_steps there is no 8-turn limit', async () => {
    user(Array.from({ length: 100 }, (_, turn) => (turn === 0 ? 'I need a flight.' : turn === 10 ? 'On 2026-12-24, please.' : 'Hm, let me think.')));
    const t = await testApp({ plugins: [bookingAgent().plugin], env: LLM_ENV });
    const { run, trace } = await evaluate(t, { scenario: scenario({ max_steps: 40 }) });
    // 11 turns passed the old 8-turn default; 2 steps a plain turn, 4 the booking one: 40 steps after 19 turns.
    expect(endOf(trace)).toEqual({ turns: 19, ended_by: 'step_limit', steps: 40, tool_errors: 0 });
    expect(run.compliance.status).toBe('fail');
  });

  it('ends at the tool-error limit, and that fails the task', async () => {
    user(['I need a flight.', 'On 2026-12-24, please.', 'And again.']);
    const t = await testApp({ plugins: [bookingAgent({ broken: true }).plugin], env: LLM_ENV });
    const { run, trace } = await evaluate(t, { scenario: scenario({ max_steps: 200, max_errors: 2 }) });
    expect(endOf(trace)).toMatchObject({ turns: 2, ended_by: 'error_limit', tool_errors: 2 });
    expect(run.compliance.status).toBe('fail');
  });
});
