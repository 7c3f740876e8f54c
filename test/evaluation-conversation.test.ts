/**
 * Issue 15 item 6: a task can be a conversation: scripted user turns with checks after any turn, or a simulated
 * user (the configured language model, msw here) that follows the scenario's instructions until its goal is met,
 * the agent ends the conversation, or the turn limit.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';
import { evaluate, finalWorld } from './evaluation-fixtures.ts';

const llm = setupServer();
beforeAll(() => llm.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => llm.resetHandlers());
afterAll(() => llm.close());
const LLM_ENV = { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'sim', AEH_ALLOW_HOSTS: 'llm.test' };

/** An agent that books a flight over two turns: it asks for the date first, then books on the payments world. */
function travelAgent(options: { endAfterBooking?: boolean } = {}) {
  const seen: Array<{ input: string; history: number }> = [];
  const plugin: Plugin = {
    name: 'travel-agent',
    setup(host) {
      host.agents.register({
        name: 'travel',
        description: 'test: a two-step booking agent',
        async call(input, context) {
          seen.push({ input, history: context.history.length });
          if (!/\d{4}-\d{2}-\d{2}/.test(input)) return { output: 'Which date would you like to fly?' };
          await context.tools!.call('payments.create_charge', { customer: 'alice', amount: 250, idempotency_key: 'booking' });
          return { output: `Booked for ${/\d{4}-\d{2}-\d{2}/.exec(input)![0]}; 250 EUR charged.`, ...(options.endAfterBooking ? { end_conversation: true } : {}) };
        },
      }, 'travel-agent');
    },
  };
  return { seen, plugin };
}

function scenario(task: Record<string, unknown>) {
  return {
    id: 'conversation', title: 'Book a flight in a conversation', industry: 'Travel', use_case: 'Booking', tags: ['conversation'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'travel' }, topology: [{ agent: 'Travel', writes: ['reply'], reads: ['ticket'] }],
    enabled_shims: ['payments'], initial_state: { payments: { currency: 'EUR', balances: { alice: 1000 } } },
    tasks: [{ id: 'book', input: 'I want to fly to Lisbon.', metrics: [{ id: 'state_match' }], ...task }],
  };
}

describe('evaluation: conversations (issue 15 item 6)', () => {
  it('plays scripted turns, gives the agent the conversation so far, and checks after each turn', async () => {
    const agent = travelAgent();
    const t = await testApp({ plugins: [agent.plugin] });
    const { run, trace } = await evaluate(t, {
      scenario: scenario({
        turns: [
          { input: 'On 2026-12-20, please.', expected_outcome: [{ target: 'shim:payments', property: 'balances.alice', expected: 750 }, { target: 'message', expected: 'Booked', mode: 'contains' }] },
          { input: 'Thanks, that is all.' },
        ],
        expected_outcome: [{ target: 'shim:payments', property: 'charges', expected: 1, mode: 'count' }],
      }),
    });
    expect(agent.seen.map((call) => call.history)).toEqual([0, 2, 4]);
    expect(trace.filter((event: any) => event.type === 'input').map((event: any) => event.data.turn ?? 1)).toEqual([1, 2, 3]);
    expect(trace.filter((event: any) => event.type === 'turn_check').map((event: any) => [event.data.turn, event.data.passed])).toEqual([[2, true], [2, true]]);
    expect(trace.find((event: any) => event.type === 'conversation_end').data).toEqual({ turns: 3, ended_by: 'script' });
    const result = trace.find((event: any) => event.type === 'metric_result').data;
    expect(result).toMatchObject({ metric: 'state_match', score: 1 });
    expect(run.compliance.status).toBe('pass');
    // The booking of turn 2 is in world.json although turn 3 followed it.
    const world = (await t.json('GET', `/api/v1/runs/${run.run_id}/evidence/world.json`)).body;
    expect(world.units).toEqual([expect.objectContaining({ task_id: 'book', diff: { payments: expect.any(Array) } })]);
    expect(finalWorld(world).payments.balances).toEqual({ alice: 750 });
    expect(world.unchanged).toBe(0);
  });

  it('fails a turn check for the right reason and points at it', async () => {
    const agent = travelAgent();
    const t = await testApp({ plugins: [agent.plugin] });
    const { trace } = await evaluate(t, {
      scenario: scenario({ turns: [{ input: 'Tomorrow, please.', expected_outcome: [{ target: 'shim:payments', property: 'charges', expected: 1, mode: 'count', description: 'the booking is charged once the date is known' }] }] }),
    });
    const result = trace.find((event: any) => event.type === 'metric_result').data;
    expect(result.score).toBe(0);
    expect(result.failures[0]).toMatchObject({ code: 'LOGIC.STATE_MISMATCH', message: expect.stringMatching(/^after turn 2: the booking is charged/) });
    expect(trace[result.failures[0].event_index].type).toBe('turn_check');
  });

  it('lets a simulated user drive the conversation until its goal is met, marking its turns', async () => {
    const prompts: any[] = [];
    llm.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      const body = await request.json() as any;
      prompts.push(body);
      const agentSaid = body.messages[body.messages.length - 1].content as string;
      const content = agentSaid.startsWith('Which date') ? 'On 2026-12-24, please.' : '###STOP###';
      return HttpResponse.json({ choices: [{ message: { role: 'assistant', content } }] });
    }));
    const agent = travelAgent();
    const t = await testApp({ plugins: [agent.plugin], env: LLM_ENV });
    const { run, trace } = await evaluate(t, {
      scenario: scenario({ user_simulator: { instructions: 'You are Alice. You want a flight to Lisbon on 2026-12-24. Give the date only when asked.' }, expected_outcome: [{ target: 'shim:payments', property: 'balances.alice', expected: 750 }] }),
    });
    expect(prompts[0].messages[0].content).toMatch(/You are Alice/);
    expect(prompts[0].messages.at(-1)).toEqual({ role: 'user', content: 'Which date would you like to fly?' });
    const inputs = trace.filter((event: any) => event.type === 'input');
    expect(inputs.map((event: any) => [event.data.input, event.data.simulated ?? false])).toEqual([['I want to fly to Lisbon.', false], ['On 2026-12-24, please.', true]]);
    expect(trace.find((event: any) => event.type === 'conversation_end').data).toEqual({ turns: 2, ended_by: 'simulator' });
    expect(run.compliance.status).toBe('pass');
  });

  it('stops when the agent ends the conversation, or at the turn limit', async () => {
    llm.use(http.post('http://llm.test/v1/chat/completions', () => HttpResponse.json({ choices: [{ message: { role: 'assistant', content: 'On 2026-12-24, and again please.' } }] })));
    const ending = travelAgent({ endAfterBooking: true });
    const t = await testApp({ plugins: [ending.plugin], env: LLM_ENV });
    const ended = await evaluate(t, { scenario: scenario({ user_simulator: { instructions: 'Keep asking.', max_turns: 5 }, expected_outcome: [{ target: 'shim:payments', property: 'charges', expected: 1, mode: 'count' }] }) });
    expect(ended.trace.find((event: any) => event.type === 'conversation_end').data).toEqual({ turns: 2, ended_by: 'agent' });
    const looping = travelAgent();
    const t2 = await testApp({ plugins: [looping.plugin], env: LLM_ENV });
    const limited = await evaluate(t2, { scenario: scenario({ user_simulator: { instructions: 'Keep asking.', max_turns: 3 }, expected_outcome: [{ target: 'shim:payments', property: 'charges', expected: 1, mode: 'count' }] }) });
    expect(limited.trace.find((event: any) => event.type === 'conversation_end').data).toEqual({ turns: 4, ended_by: 'turn_limit' });
    // The idempotency key kept the repeated booking requests to one charge.
    expect(limited.run.compliance.status).toBe('pass');
  });

  it('follows a benchmark\'s own user guidelines and τ-bench\'s end tokens: the guidelines, then the instructions as <scenario>', async () => {
    const prompts: any[] = [];
    llm.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      prompts.push(await request.json());
      return HttpResponse.json({ choices: [{ message: { role: 'assistant', content: 'I would rather talk to a person. ###TRANSFER###' } }] });
    }));
    const t = await testApp({ plugins: [travelAgent().plugin], env: LLM_ENV });
    const { trace } = await evaluate(t, { scenario: scenario({ user_simulator: { instructions: 'You are Bob.', guidelines: '# User simulation guidelines\nBe brief.' } }) });
    expect(prompts[0].messages[0]).toEqual({ role: 'system', content: '# User simulation guidelines\nBe brief.\n\n<scenario>\nYou are Bob.\n</scenario>' });
    expect(trace.find((event: any) => event.type === 'conversation_end').data).toEqual({ turns: 1, ended_by: 'simulator' });
  });

  it('refuses a simulated user without a language-model provider, and a simulator that fails ends the run with a reason', async () => {
    const t = await testApp({ plugins: [travelAgent().plugin] });
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: scenario({ user_simulator: { instructions: 'x' } }) } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ path: '/tasks/0/user_simulator', message: expect.stringMatching(/AEH_LLM_BASE_URL/) });
    const both = await t.json('POST', '/api/evaluate', { body: { scenario: scenario({ user_simulator: { instructions: 'x' }, turns: [{ input: 'y' }] }) } });
    expect(both.status).toBe(400);
    llm.use(http.post('http://llm.test/v1/chat/completions', () => new HttpResponse('overloaded', { status: 503 })));
    const t2 = await testApp({ plugins: [travelAgent().plugin], env: LLM_ENV });
    const { run } = await evaluate(t2, { scenario: scenario({ user_simulator: { instructions: 'x' } }) });
    expect(run.status).toBe('failed');
    expect(run.failures.map((failure: any) => failure.code)).toContain('INFRA.USER_SIMULATOR_ERROR');
  });
});
