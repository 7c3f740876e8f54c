/**
 * Issue 27 item 2, through the service: the τ-bench shims are listed by `GET /api/v1/shims`, find their
 * database in the operator's data directory (`AEH_TAU_DATA_DIR`), and a scenario built from τ-bench tasks by
 * `tauScenario` (here from tasks and a database of our own in τ-bench's format) is judged by its gold actions.
 */
import { describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';
import { BUNDLED_TAU_RELEASE, readTauDb, tauScenario } from '../plugins/shims/tau/index.ts';
import { airlineDb } from '../plugins/shims/tau/fixtures/synthetic.ts';
import { dataDir } from './tau-fixtures.ts';
import { BUNDLED_TAU_DIR as BUNDLED } from '../cli/commands/bench.ts';

const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };

describe('τ-bench tasks as a scenario (tauScenario)', () => {
  it('turns each task of the split into a task: the user scenario as τ-bench renders it, the gold actions, the required outputs', async () => {
    const { scenario, policy } = await tauScenario('retail', { dir: dataDir(), files });
    expect(policy).toContain('Retail agent policy');
    expect(scenario).toMatchObject({ id: 'tau-bench-retail-base', enabled_shims: ['tau_retail'], conversation: 'per_task' });
    expect(scenario.initial_state).toBeUndefined();
    expect(scenario.tasks.map((task) => task.id)).toEqual(['task_0', 'task_1']);
    const [first, second] = scenario.tasks;
    expect(first.user_simulator?.instructions).toBe('Instructions:\n\tDomain: retail\n\tReason for call:\n\t\tYou want to cancel order #W1.\n\t\tYou ordered it by mistake.\n\tKnown info:\n\t\tYou are Ada Lovelace in zip code 10001.\n\tTask instructions:\n\t\tBe brief.');
    // The refused lookup changes nothing, so leaving it out gives the same expected world (and a judgeable task).
    expect(first.expected_actions).toEqual([
      { name: 'tau_retail.find_user_id_by_name_zip', arguments: { first_name: 'Ada', last_name: 'Lovelace', zip: '10001' } },
      { name: 'tau_retail.cancel_pending_order', arguments: { order_id: '#W1', reason: 'ordered by mistake' } },
    ]);
    expect(first.expected_outcome).toEqual([{ target: 'message', mode: 'contains', expected: '75.5' }]);
    expect(second.user_simulator?.instructions).toBe('Persona:\n\tCurt.\nInstructions:\n\tAsk for the status of #W2.');
    expect(second.expected_outcome).toBeUndefined();
  });

  it('runs each task under τ-bench\'s rules: the agent greets, 200 steps, 10 tool errors, the bundled guidelines, every reward component must-pass (issue 34)', async () => {
    const { scenario, rewardBasis } = await tauScenario('retail', { dir: dataDir(), files }, { guidelinesFrom: { dir: BUNDLED, files } });
    const [first] = scenario.tasks;
    expect(first.input).toBe('');
    expect(first.user_simulator).toMatchObject({ greeting: 'Hi! How can I help you today?', max_steps: 200, max_errors: 10 });
    expect(first.user_simulator?.max_turns).toBeUndefined();
    // The data directory has no user_simulator/ of its own: the release's guidelines shipped with the harness.
    expect(first.user_simulator?.guidelines).toMatch(/^# User Simulation Guidelines/);
    expect(first.metrics).toEqual([{ id: 'state_match' }, { id: 'conversation_end' }]);
    expect(scenario.verdict).toEqual({ must_pass: ['declared', 'nl_assertions', 'conversation_end'] });
    // No reward_basis: τ²-bench's default, original τ-bench's [DB, COMMUNICATE].
    expect(rewardBasis).toEqual({ task_0: ['DB', 'COMMUNICATE'], task_1: ['DB', 'COMMUNICATE'] });
  });

  it('records the release, the split and the rules in the scenario (each run signs it as scenario.json)', async () => {
    const mine = (await tauScenario('retail', { dir: dataDir(), files })).scenario;
    expect(mine).toMatchObject({ source: 'τ-bench data directory', policy_ref: 'τ-bench retail/policy.md', tags: expect.arrayContaining(['split:base', 'data:data directory', 'rules:tau2-bench a2c0247']) });
    const shipped = (await tauScenario('airline', { dir: BUNDLED, files }, { release: BUNDLED_TAU_RELEASE, split: 'test' })).scenario;
    expect(shipped).toMatchObject({ source: 'τ-bench tau2-bench a2c0247, airline database τ-bench v1 59a200c', policy_ref: 'tau2-bench a2c0247, airline database τ-bench v1 59a200c airline/policy.md' });
    expect(shipped.tags).toEqual(['tau-bench', 'airline', 'test', 'split:test', 'data:tau2-bench a2c0247, airline database τ-bench v1 59a200c', 'rules:tau2-bench a2c0247']);
    expect(shipped.description).toContain('at most 200 steps and 10 tool errors, a conversation cut by either scores 0');
    expect(shipped.tasks).toHaveLength(20);
  });

  it('honours each task\'s reward_basis: NL_ASSERTION judged by the model and COMMUNICATE left out when not named; ACTION on the compared arguments', async () => {
    const { scenario, rewardBasis } = await tauScenario('retail', { dir: dataDir(), files }, { split: 'rules' });
    const [nl, action] = scenario.tasks;
    expect(rewardBasis).toEqual({ task_3: ['DB', 'NL_ASSERTION'], task_4: ['ACTION'] });
    // DB with no gold action: nothing may change; communicate_info is not in the basis, so it is not checked.
    expect(nl.expected_actions).toEqual([]);
    expect(nl.expected_outcome).toBeUndefined();
    expect(nl.metrics).toEqual([{ id: 'state_match' }, { id: 'nl_assertions', params: { assertions: ['The agent does not promise a refund for #W2.'] } }, { id: 'conversation_end' }]);
    // ACTION without DB: the call must be made (compare_args: the order id only); the database is not compared.
    expect(action.expected_actions).toBeUndefined();
    expect(action.expected_outcome).toEqual([{ target: 'tool_calls', where: { name: 'tau_retail.get_order_details', arguments: { order_id: '#W2' } }, mode: 'exists' }]);
  });

  it('names a reward component the harness does not score in the domain (ENV_ASSERTION outside telecom, whose worlds have no env assertions)', async () => {
    const { tauTask } = await import('../plugins/shims/tau/tasks.ts');
    const { tauRetailShim } = await import('../plugins/shims/tau/index.ts');
    const task = { id: '9', user_scenario: { instructions: 'x' }, evaluation_criteria: { actions: [], reward_basis: ['ENV_ASSERTION'] } };
    await expect(tauTask(task, tauRetailShim() as never, {}, 'retail')).rejects.toThrow('τ-bench retail task 9: reward_basis ENV_ASSERTION is not scored by the harness');
  });

  it('takes another split, and names the splits there are when asked for one that is not', async () => {
    const dir = dataDir();
    expect((await tauScenario('retail', { dir, files }, { split: 'test' })).scenario.tasks.map((task) => task.id)).toEqual(['task_1']);
    await expect(tauScenario('retail', { dir, files }, { split: 'dev' })).rejects.toThrow('τ-bench retail has no split "dev" (it has base, test, rules, endless)');
  });

  it("reads τ-bench v1's three airline files as one database, each user with its id", async () => {
    const db = await readTauDb({ dir: dataDir(), files }, 'airline');
    expect(db).toEqual(airlineDb());
  });
});

describe('τ-bench shims through the service', () => {
  it('lists the three, transfer_to_human_agents marked terminal', async () => {
    const t = await testApp();
    const { body } = await t.json('GET', '/api/v1/shims');
    const tau = (body as any).items.filter((shim: any) => shim.name.startsWith('tau_'));
    expect(tau.map((shim: any) => shim.name)).toEqual(['tau_retail', 'tau_airline', 'tau_telecom', 'tau_telecom_user']);
    expect(tau[0].actions.find((action: any) => action.name === 'transfer_to_human_agents')).toMatchObject({ terminal: true });
    expect(tau[1].actions.filter((action: any) => action.terminal).map((action: any) => action.name)).toEqual(['transfer_to_human_agents']);
    expect(tau[2].actions.filter((action: any) => action.terminal).map((action: any) => action.name)).toEqual(['transfer_to_human_agents']);
  });

  it('judges a converted τ-bench task by its gold actions, the database read from AEH_TAU_DATA_DIR', async () => {
    const dir = dataDir();
    const t = await testApp({ env: { AEH_TAU_DATA_DIR: dir } });
    const { scenario } = await tauScenario('retail', { dir, files });
    // One turn with a scripted agent: no simulated user (that needs a language model).
    const task = { ...scenario.tasks[0], user_simulator: undefined, input: 'Cancel #W1, I ordered it by mistake. I am Ada Lovelace, 10001.' };
    const agent = (calls: unknown[]) => ({ adapter: 'scripted', replies: { '*': { output: 'Cancelled; 75.5 is back on your gift card.', tool_calls: calls } } });
    const cancel = (reason: string) => [{ name: 'tau_retail.cancel_pending_order', arguments: { order_id: '#W1', reason } }];

    const good = await evaluate(t, { scenario: { ...scenario, agent: agent(cancel('ordered by mistake')), tasks: [task] } });
    expect(good.trace.find((event: any) => event.type === 'metric_result' && event.data.metric === 'state_match').data.score).toBe(1);

    const wrong = await evaluate(t, { scenario: { ...scenario, agent: agent(cancel('no longer needed')), tasks: [task] } });
    const failure = wrong.run.failures.find((entry: any) => entry.metric === 'state_match');
    expect(failure.evidence.differences).toContainEqual({ path: '/tau_retail/orders/#W1/cancel_reason', expected: 'ordered by mistake', actual: 'no longer needed' });
  });

  it('without a data directory, the shims read the release\'s database shipped in catalog/data/tau-bench (issue 34)', async () => {
    const t = await testApp();
    const { scenario } = await tauScenario('retail', { dir: BUNDLED, files });
    // Task 0 of the release, one turn, an agent that does nothing: the gold's writes on the real orders are missing.
    const task = { ...scenario.tasks[0], user_simulator: undefined, input: 'Help me with my order.', metrics: [{ id: 'state_match' }] };
    const { run } = await evaluate(t, { scenario: { ...scenario, agent: { adapter: 'scripted', replies: { '*': { output: 'Done.' } } }, tasks: [task] } });
    const failure = run.failures.find((entry: any) => entry.metric === 'state_match');
    expect(failure.evidence.differences.map((difference: any) => difference.path)).toContainEqual(expect.stringMatching(/^\/tau_retail\/orders\/#W\d{7}\//));
  });

  it('where the runtime has no catalog directory (workerd) and nothing is configured, a scenario that gives no database is refused, saying what to configure', async () => {
    const { configuredLoader } = await import('../plugins/shims/tau/index.ts');
    const host = { settings: {}, config: { projectRoot: '/p' }, capabilities: { files: { readFile: async () => new Uint8Array(), stat: async () => ({ isFile: true, size: 0 }) } } };
    expect(configuredLoader(host as never)).toBeUndefined();
    expect(configuredLoader({ ...host, capabilities: { ...host.capabilities, catalogDir: '/pkg/catalog' } } as never)).toBeTypeOf('function');
  });
});
