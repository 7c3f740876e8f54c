/**
 * Issue 34 item 3: τ²-bench's telecom domain with dual control, run as a user runs it: `aeh bench tau --domain
 * telecom` on the release's shipped data (three base tasks, their split narrowed in a copy of the folder), the
 * simulated user on a local language model (msw) that plays the user's gold actions with its own tools, and an
 * agent over http (msw) that plays the agent's. Each side says in its messages how far it got, so both follow the
 * task's gold in τ-bench's order: the user first says hello, the agent names the task and what it has done
 * (`[task <id>; agent-done n]`), the user how many of its actions it has done (`[user-done k]`). An honest agent
 * passes; one that says it did its part without calling its tools fails on the env assertions (and the
 * transfer task on its ACTION check), and so does an honest agent beside a user that only says it did its part.
 * The run's trace holds the user's calls, marked as the user's.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import { runCli } from './cli-io.ts';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';
import { BUNDLED_TAU_DIR } from '../cli/commands/bench.ts';
import { tauScenario } from '../plugins/shims/tau/index.ts';
import { scenarioTaskId } from '../plugins/shims/tau/tasks.ts';

const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };

type Gold = { name: string; arguments: Record<string, unknown>; requestor: 'user' | 'assistant' };
const TASKS = JSON.parse(gunzipSync(readFileSync(join(BUNDLED_TAU_DIR, 'telecom', 'tasks.json.gz'))).toString()) as Array<{ id: string; evaluation_criteria: { actions: Gold[] } }>;
const goldOf = (id: string) => TASKS.find((task) => task.id === id)!.evaluation_criteria.actions;
const byScenarioId = new Map(TASKS.map((task) => [scenarioTaskId(task.id), task.id]));
const CHOSEN = [
  // MMS: twelve actions, two of them the agent's (refuel_data, enable_roaming), the rest the user's on the phone.
  TASKS[0].id,
  // An overdue bill: the agent asks for payment, the user pays on the phone, the agent resumes the line.
  '[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]',
  // A locked SIM: only a human can help (ENV_ASSERTION and ACTION: the transfer must be made).
  '[service_issue]break_apn_settings|lock_sim_card_pin[PERSONA:None]',
];

/** The consecutive actions of one side from `cursor` on. */
function segment(gold: Gold[], cursor: number, side: Gold['requestor']): Gold[] {
  const found: Gold[] = [];
  for (let index = cursor; index < gold.length && gold[index].requestor === side; index++) found.push(gold[index]);
  return found;
}
const numberAfter = (text: string, label: string) => Number(new RegExp(`${label} (\\d+)`).exec(text)?.[1] ?? 0);

const userCalls: any[] = [];
const answer = (message: Record<string, unknown>) => HttpResponse.json({ choices: [{ message: { role: 'assistant', ...message } }] });
const server = setupServer(
  // The simulated user: its transcript holds its own calls (as its assistant messages) and their results.
  http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
    const body = await request.json() as any;
    const messages = body.messages as any[];
    // `user-claims`: a user that says it did its part on the phone without calling its tools.
    const claims = body.model === 'user-claims';
    const done = claims
      ? Math.max(0, ...messages.filter((message) => message.role === 'assistant').map((message) => numberAfter(String(message.content ?? ''), 'user-done')))
      : messages.reduce((count, message) => count + (message.role === 'assistant' ? message.tool_calls?.length ?? 0 : 0), 0);
    const last = messages[messages.length - 1];
    if (last.role === 'tool') return answer({ content: `I did that. [user-done ${done}]` });
    const task = /\[task (.+?); agent-done (\d+)\]/.exec(String(last.content));
    if (!task) return answer({ content: `Hi, my phone is acting up. [user-done ${done}]` });
    const gold = goldOf(task[1]);
    const cursor = done + Number(task[2]);
    if (cursor >= gold.length) return answer({ content: '###STOP###' });
    const mine = segment(gold, cursor, 'user');
    if (!mine.length) return answer({ content: `Please go on. [user-done ${done}]` });
    if (claims) return answer({ content: `I did all that on my phone. [user-done ${done + mine.length}]` });
    expect(body.tools.map((tool: any) => tool.function.name)).toEqual(expect.arrayContaining(mine.map((action) => action.name)));
    const calls = mine.map((action, index) => ({ id: `u${done + index}`, type: 'function', function: { name: action.name, arguments: JSON.stringify(action.arguments) } }));
    userCalls.push(...calls);
    return answer({ content: null, tool_calls: calls });
  }),
  // The agent: `honest` calls its gold actions; `claims` says it did without calling anything.
  http.post('http://agent.test/telecom/:who', async ({ request, params }) => {
    const body = await request.json() as any;
    const id = byScenarioId.get(body.task_id)!;
    const gold = goldOf(id);
    const before = [...(body.history as any[])].reverse().find((turn) => turn.role === 'assistant' && /agent-done/.test(turn.content));
    const done = before ? numberAfter(before.content, 'agent-done') : 0;
    const mine = segment(gold, numberAfter(String(body.input), 'user-done') + done, 'assistant');
    if (params.who === 'honest' && mine.length && !body.round) {
      return HttpResponse.json({ tool_calls: mine.map((action, index) => ({ id: `a${index}`, name: action.name, arguments: action.arguments })) });
    }
    return HttpResponse.json({ output: `[task ${id}; agent-done ${done + mine.length}] Done on my side.` });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

/** The shipped telecom folder with its base split narrowed to the chosen tasks. */
function telecomData(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-telecom-'));
  mkdirSync(join(dir, 'telecom'));
  for (const file of readdirSync(join(BUNDLED_TAU_DIR, 'telecom'))) copyFileSync(join(BUNDLED_TAU_DIR, 'telecom', file), join(dir, 'telecom', file));
  writeFileSync(join(dir, 'telecom', 'split_tasks.json.gz'), gzipSync(JSON.stringify({ base: CHOSEN })));
  return dir;
}

describe('cli: aeh bench tau --domain telecom (dual control)', () => {
  const env = { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' };
  const bench = (who: string, data: string, cwd: string) => runCli(['bench', 'tau', '--domain', 'telecom', '--data', data, '--agent', `{"adapter":"http","url":"http://agent.test/telecom/${who}"}`, '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env });

  it('an agent that does its part passes every task, the user doing theirs with its own tools; one that only says so fails them', async () => {
    const data = telecomData();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    userCalls.length = 0;
    const honest = await bench('honest', data, cwd);
    expect(honest.code, honest.stderr).toBe(0);
    const passed = JSON.parse(honest.stdout);
    expect(passed.tasks.map((task: any) => [task.task_id, task.passed, task.status])).toEqual(CHOSEN.map((id) => [scenarioTaskId(id), 1, 'pass']));
    expect(passed.domains[0]).toMatchObject({ domain: 'telecom', pass_hat: [1] });
    expect(passed.reward_basis ?? passed.domains[0].reward_basis).toMatchObject({ [scenarioTaskId(CHOSEN[2])]: ['ENV_ASSERTION', 'ACTION'], [scenarioTaskId(CHOSEN[0])]: ['ENV_ASSERTION'] });
    // Every gold action of the user's, made by the simulated user with its own tools.
    expect(userCalls.length).toBe(CHOSEN.flatMap(goldOf).filter((action) => action.requestor === 'user').length);

    const claims = JSON.parse((await bench('claims', data, cwd)).stdout);
    expect(claims.tasks.map((task: any) => [task.task_id, task.passed, task.status])).toEqual(CHOSEN.map((id) => [scenarioTaskId(id), 0, 'fail']));
    expect(claims.compliance.status).toBe('fail');
    expect(JSON.stringify(claims.compliance)).toContain('LOGIC.STATE_MISMATCH');
  }, 120_000);

  it("a user that only says it did its part on its phone fails the tasks that need it, though the agent does its own (the transfer task needs only the agent's)", async () => {
    const data = telecomData();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    userCalls.length = 0;
    const result = await runCli(['bench', 'tau', '--domain', 'telecom', '--data', data, '--agent', '{"adapter":"http","url":"http://agent.test/telecom/honest"}', '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env: { ...env, AEH_LLM_MODEL: 'user-claims' } });
    const report = JSON.parse(result.stdout);
    expect(userCalls).toEqual([]);
    expect(report.tasks.map((task: any) => [task.task_id, task.passed, task.status])).toEqual([[scenarioTaskId(CHOSEN[0]), 0, 'fail'], [scenarioTaskId(CHOSEN[1]), 0, 'fail'], [scenarioTaskId(CHOSEN[2]), 1, 'pass']]);
    expect(JSON.stringify(report.compliance)).toContain('LOGIC.STATE_MISMATCH');
  });

  it("runs the release's whole base split from the shipped data, and an honest agent beside an honest user passes all 114 tasks", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    userCalls.length = 0;
    const result = await runCli(['bench', 'tau', '--domain', 'telecom', '--agent', '{"adapter":"http","url":"http://agent.test/telecom/honest"}', '--trials', '1', '--poll-ms', '20', '--json'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ split: 'base', release: expect.stringContaining('a2c0247') });
    expect(report.tasks).toHaveLength(114);
    expect(report.tasks.filter((task: any) => task.status !== 'pass')).toEqual([]);
    expect(report.domains[0]).toMatchObject({ domain: 'telecom', pass_hat: [1] });
    expect(userCalls).toHaveLength(393);
  });

  it('prints τ-bench\'s table for telecom with its reward bases', async () => {
    const data = telecomData();
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
    const result = await runCli(['bench', 'tau', '--domain', 'telecom', '--data', data, '--agent', '{"adapter":"http","url":"http://agent.test/telecom/honest"}', '--trials', '1', '--poll-ms', '20'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('  domain   tasks  pass^1  verdict  reward basis\n  telecom      3   1.000  pass     ENV_ASSERTION 2, ENV_ASSERTION×ACTION 1\n');
  }, 120_000);
});

describe('τ-bench telecom through the API: the user\'s own tool calls in the trace', () => {
  it('records the user\'s calls as the user\'s, the sync between the worlds, and the env assertions as world checks', async () => {
    const t = await testApp({ env: { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'user-sim', AEH_ALLOW_HOSTS: 'llm.test,agent.test' } });
    const { scenario } = await tauScenario('telecom', { dir: telecomData(), files });
    const bill = scenario.tasks.find((task) => task.id === scenarioTaskId(CHOSEN[1]))!;
    // The agent never sees the user's device.
    expect(scenario).toMatchObject({ enabled_shims: ['tau_telecom', 'tau_telecom_user'], user_shims: ['tau_telecom_user'], tool_names: 'bare' });
    const { run, trace } = await evaluate(t, { scenario: { ...scenario, agent: { adapter: 'http', url: 'http://agent.test/telecom/honest' }, tasks: [bill] } });
    expect(run.status).toBe('succeeded');
    const calls = trace.filter((event: any) => event.type === 'tool_call');
    expect(calls.map((event: any) => [event.agent ?? null, event.data.requestor ?? 'agent', event.data.name])).toEqual([
      ['user', 'user', 'tau_telecom_user.toggle_airplane_mode'],
      [null, 'agent', 'tau_telecom.send_payment_request'],
      ['user', 'user', 'tau_telecom_user.make_payment'],
      [null, 'agent', 'tau_telecom.resume_line'],
      ['user', 'user', 'tau_telecom_user.reboot_device'],
    ]);
    expect(calls[2].data.result).toMatch(/^Payment of \d+\.\d+ USD has been made for bill B\d+\.$/);
    // The payment reaches the carrier through the worlds' sync, recorded as a change the call led to.
    const synced = trace.filter((event: any) => event.type === 'state_change' && event.data.reconciled);
    expect(synced.some((event: any) => event.data.shim === 'tau_telecom' && event.data.tool_call_event === calls[2].seq && JSON.stringify(event.data.patch).includes('Paid'))).toBe(true);
    const checks = trace.filter((event: any) => event.type === 'world_check');
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((event: any) => event.data.passed === true)).toBe(true);
    const stateMatch = trace.find((event: any) => event.type === 'metric_result' && event.data.metric === 'state_match');
    expect(stateMatch.data.score).toBe(1);
    // τ-bench's steps: the user's two tool rounds count two steps each.
    const end = trace.find((event: any) => event.type === 'conversation_end');
    expect(end.data).toMatchObject({ ended_by: 'simulator', tool_errors: 0 });
  });
});
