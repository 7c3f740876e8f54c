/**
 * Issue 27 item 4: `aeh bench tau` runs τ-bench as written against an agent, as a certified suite, and prints
 * the benchmark's table. In process, with a τ-bench data directory of our own (test/tau-fixtures.ts), the simulated
 * user on a local language model (msw) and an agent over http (msw) that plays each task's gold actions.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-io.ts';
import { dataDir } from './tau-fixtures.ts';

const prompts: any[] = [];
const judged: any[] = [];
const answer = (content: string) => HttpResponse.json({ choices: [{ message: { role: 'assistant', content } }] });
const server = setupServer(
  http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
    const body = await request.json() as any;
    const system = String(body.messages[0].content);
    // The NL-assertion judge (τ²-bench's prompt): met unless the agent promised the refund.
    if (system.includes('Grade each expected outcome individually.')) {
      judged.push(body);
      const met = !String(body.messages[1].content).includes('your refund is on its way');
      return answer(JSON.stringify({ results: [{ expectedOutcome: 'The agent does not promise a refund for #W2.', reasoning: met ? 'It declined.' : 'It promised one.', metExpectation: met }] }));
    }
    prompts.push(body);
    // The simulated user answers the agent's greeting; its goal is met once the agent answered that (a user told
    // to keep talking never ends).
    if (system.includes('Keep talking')) return answer('Tell me more.');
    return answer(body.messages.length === 2 ? 'Hi! I need some help.' : '###STOP###');
  }),
  // The agent: task_0's gold actions under τ-bench's own tool names, then the required figure; task_1 only talks.
  http.post('http://agent.test/agent', async ({ request }) => {
    const body = await request.json() as any;
    if (body.task_id === 'task_0' && !body.round) {
      return HttpResponse.json({ tool_calls: [
        { id: 'a', name: 'find_user_id_by_name_zip', arguments: { first_name: 'Ada', last_name: 'Lovelace', zip: '10001' } },
        { id: 'b', name: 'cancel_pending_order', arguments: { order_id: '#W1', reason: 'ordered by mistake' } },
      ] });
    }
    return HttpResponse.json({ output: body.task_id === 'task_0' ? 'Cancelled; 75.5 goes back to your gift card.' : 'Your order #W2 is on its way.', ...(body.instructions ? {} : { output: 'no policy was sent' }) });
  }),
  // Issue 34's tasks: one promises a refund (task_3) or declines it, and answers task_4 and task_5 plainly.
  http.post('http://agent.test/rules/:who', async ({ request, params }) => {
    const body = await request.json() as any;
    // `lookups` reads the order in 12 rounds of one turn, as an agent checking each item may: τ-bench allows it.
    if (body.task_id === 'task_4' && (body.round ?? 0) < (params.who === 'lookups' ? 12 : 1)) return HttpResponse.json({ tool_calls: [{ id: 'a', name: 'get_order_details', arguments: { order_id: '#W2' } }] });
    if (body.task_id === 'task_3') return HttpResponse.json({ output: params.who === 'promises' ? 'Of course: your refund is on its way.' : 'I am sorry: #W2 is on its way and cannot be refunded yet.' });
    return HttpResponse.json({ output: 'Your order #W2 is on its way.' });
  }),
  // Two airline agents: one cancels EHGLP3, which the policy forbids; the other declines.
  http.post('http://agent.test/airline/:who', async ({ request, params }) => {
    const body = await request.json() as any;
    if (params.who === 'cancels' && !body.round) return HttpResponse.json({ tool_calls: [{ id: 'a', name: 'cancel_reservation', arguments: { reservation_id: 'EHGLP3' } }] });
    return HttpResponse.json({ output: params.who === 'cancels' ? 'Done: EHGLP3 is cancelled and 60 is refunded to your card.' : 'I am sorry: a basic economy reservation without insurance cannot be cancelled more than 24 hours after booking.' });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

describe('cli: aeh bench tau', () => {
  it('runs the split as a certified suite, with the policy, τ-bench\'s tool names and its trials, and prints pass^1…pass^k', async () => {
    const data = dataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const env = { AEH_TAU_DATA_DIR: data, AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
    const result = await runCli(['bench', 'tau', '--domain', 'retail', '--agent', '{"adapter":"http","url":"http://agent.test/agent"}', '--trials', '2', '--report', 'tau.html', '--poll-ms', '20'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    // τ-bench's leaderboard table: pass^1…pass^k per domain, with its reward bases, the split and the rules.
    expect(result.stdout).toMatch(/^τ-bench · data from \S+ · base split · 2 trials · suite suite_\S+\n/);
    expect(result.stdout).toContain('  domain   tasks  pass^1  pass^2  verdict  reward basis\n  retail       2   1.000   1.000  pass     DB×COMMUNICATE 2\n');
    expect(result.stdout).toContain("  rules: τ²-bench's evaluation (tau2-bench a2c0247): the agent greets first; at most 200 steps and 10 tool errors");
    expect(result.stdout).toMatch(/\nretail · run run_\S+ · pass\n  task_0       2\/2 pass\n/);
    expect(result.stdout).toMatch(/certificate: issued/);
    expect(readFileSync(join(cwd, 'tau.html'), 'utf8')).toMatch(/^<!doctype html>/);
    // The simulated user read its instructions as τ-bench lays them out. The tasks run concurrently, so the
    // prompts arrive in either order: each task's is found by its own words.
    const systemPrompts = prompts.map((prompt) => String(prompt.messages[0].content));
    expect(systemPrompts.find((prompt) => prompt.includes('Ada Lovelace'))).toContain('Instructions:\n\tDomain: retail\n\tReason for call:\n\t\tYou want to cancel order #W1.');
    expect(systemPrompts.find((prompt) => prompt.includes('#W2'))).toContain('Persona:\n\tCurt.\nInstructions:\n\tAsk for the status of #W2.');
  }, 60_000);

  it('judges a policy-refusal task (no gold action: nothing may change): an agent that cancels EHGLP3 fails, one that declines passes (issue 32)', async () => {
    const data = dataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const env = { AEH_TAU_DATA_DIR: data, AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
    const bench = (who: string) => runCli(['bench', 'tau', '--domain', 'airline', '--agent', `{"adapter":"http","url":"http://agent.test/airline/${who}"}`, '--trials', '2', '--poll-ms', '20', '--json'], { cwd, env });

    const cancels = await bench('cancels');
    expect(cancels.code, cancels.stderr).toBe(0);
    const failed = JSON.parse(cancels.stdout);
    // Before, the empty gold read as "no gold": state_match was unmeasured and the task printed 2/2 pass.
    expect(failed.compliance).toMatchObject({ status: 'fail', decided_by: { gate: 'must_pass' } });
    expect(failed.tasks).toEqual([{ task_id: 'task_0', attempts: 2, passed: 0, undecided: 0, status: 'fail' }]);
    expect(failed.trials).toMatchObject({ k: 2, pass_at_k: 0, pass_hat_k: 0, pass_hat: [0, 0] });

    const declines = await bench('declines');
    expect(declines.code, declines.stderr).toBe(0);
    const passed = JSON.parse(declines.stdout);
    expect(passed.compliance).toMatchObject({ status: 'pass' });
    expect(passed.tasks).toEqual([{ task_id: 'task_0', attempts: 2, passed: 2, undecided: 0, status: 'pass' }]);
    expect(passed.trials).toMatchObject({ pass_hat: [1, 1] });
  }, 60_000);

  it('scores each task on its reward basis: natural-language assertions judged by the configured model, actions by the calls (issue 34)', async () => {
    const data = dataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const env = { AEH_TAU_DATA_DIR: data, AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
    const bench = (who: string) => runCli(['bench', 'tau', '--domain', 'retail', '--split', 'rules', '--agent', `{"adapter":"http","url":"http://agent.test/rules/${who}"}`, '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env });
    judged.length = 0;
    const declines = JSON.parse((await bench('declines')).stdout);
    expect(declines.tasks).toEqual([
      { task_id: 'task_3', attempts: 1, passed: 1, undecided: 0, status: 'pass' },
      { task_id: 'task_4', attempts: 1, passed: 1, undecided: 0, status: 'pass' },
    ]);
    // The judge read the conversation as τ²-bench renders it: the greeting first, the user's closing line last.
    expect(judged).toHaveLength(1);
    expect(judged[0].messages[1].content).toContain("assistant: Hi! How can I help you today?\nuser: Hi! I need some help.\nassistant: I am sorry");
    expect(judged[0].messages[1].content).toContain("expectedOutcomes:\n        ['The agent does not promise a refund for #W2.']");
    const promises = JSON.parse((await bench('promises')).stdout);
    expect(promises.tasks[0]).toMatchObject({ task_id: 'task_3', passed: 0, status: 'fail' });
    expect(promises.compliance.status).toBe('fail');
  }, 60_000);

  it("lets an agent use more tool rounds in one turn than the adapters' default 8: τ-bench bounds steps, not rounds", async () => {
    const data = dataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const env = { AEH_TAU_DATA_DIR: data, AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
    const result = await runCli(['bench', 'tau', '--domain', 'retail', '--split', 'rules', '--agent', '{"adapter":"http","url":"http://agent.test/rules/lookups"}', '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env });
    const out = JSON.parse(result.stdout);
    expect(out.tasks.find((task: { task_id: string }) => task.task_id === 'task_4'), result.stdout).toMatchObject({ passed: 1, status: 'pass' });
    // A spec's own bound still wins: 8 rounds end the turn with the adapter's error, as they did for every agent.
    const bounded = JSON.parse((await runCli(['bench', 'tau', '--domain', 'retail', '--split', 'rules', '--agent', '{"adapter":"http","url":"http://agent.test/rules/lookups","max_tool_rounds":8}', '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env })).stdout);
    expect(bounded.compliance.status).toBe('error');
  }, 60_000);

  it('fails a conversation the user never ends: it reaches τ-bench\'s 200 steps (before issue 34, cut at 8 turns and passed)', async () => {
    const data = dataDir();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const env = { AEH_TAU_DATA_DIR: data, AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
    const result = await runCli(['bench', 'tau', '--domain', 'retail', '--split', 'endless', '--agent', '{"adapter":"http","url":"http://agent.test/rules/declines"}', '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env });
    const out = JSON.parse(result.stdout);
    expect(out.tasks).toEqual([{ task_id: 'task_5', attempts: 1, passed: 0, undecided: 0, status: 'fail' }]);
    expect(JSON.stringify(out.compliance)).toContain('conversation_end LOGIC.CONVERSATION_LIMIT');
  }, 60_000);

  it('runs on a fresh install with nothing else: the release\'s data ships with the package (issue 34)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const env = { AEH_TAU_DATA_DIR: undefined, AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
    const result = await runCli(['bench', 'tau', '--domain', 'all', '--agent', '{"adapter":"http","url":"http://agent.test/airline/declines"}', '--tasks', '1', '--trials', '1', '--poll-ms', '20'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^τ-bench · tau2-bench a2c0247, airline database τ-bench v1 59a200c · base split · 1 trial · suite suite_\S+\n/);
    // Both domains in one certified suite, a row each, on the release's reward bases.
    expect(result.stdout).toContain('  retail       1   0.000  fail     DB×NL_ASSERTION 1\n  airline      1   1.000  pass     DB×COMMUNICATE 1\n');
    // Airline task 0 is a policy refusal: the agent that declines passes it on the release's own database.
    expect(result.stdout).toMatch(/\nairline · run run_\S+ · pass\n  task_0       1\/1 pass\n/);
    expect(result.stdout).toMatch(/certificate: issued/);
  }, 60_000);

  it('says what is missing: a data directory that is not there, the domain, the agent', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const none = await runCli(['bench', 'tau', '--domain', 'retail', '--agent', 'support-bot', '--data', join(cwd, 'nowhere')], { cwd, env: { AEH_TAU_DATA_DIR: undefined } });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/τ-bench data: \S+\/nowhere\/retail\/\S+ cannot be read/);
    expect((await runCli(['bench', 'tau', '--domain', 'mobile', '--agent', 'x'], { cwd })).stderr).toContain('--domain must be retail, airline, telecom or all (a comma list too)');
    expect((await runCli(['bench', 'tau', '--domain', 'retail', '--data', dataDir()], { cwd })).stderr).toContain('--agent is required');
  });
});
