import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { evaluate } from '../../test/evaluation-fixtures.ts';
import { switchableAgent, switchableScenario, type SwitchableReplies } from '../../test/compare-fixtures.ts';

const GOOD = { t1: 'Your balance is 42 EUR.', t2: "I can't help with that." };

describe('compare: two runs', () => {
  let t: TestApp;
  const replies: SwitchableReplies = {};
  const scenario = switchableScenario('cmp');
  const run = async (answers: SwitchableReplies, body: Record<string, unknown> = {}) => {
    for (const key of Object.keys(replies)) delete replies[key];
    Object.assign(replies, answers);
    return (await evaluate(t, { scenario, ...body })).run;
  };

  beforeAll(async () => {
    t = await testApp({ plugins: [switchableAgent(replies)] });
  });

  it('reports index and dimension deltas, outcomes before and after, failures new, fixed and unchanged, changed answers side by side', async () => {
    const base = await run(GOOD);
    // t1 now lacks the amount (regressed), t2 still refuses but differently (same, answer changed).
    const head = await run({ t1: 'Your balance is unknown.', t2: "I won't do that." });
    const { status, body } = await t.json('GET', `/api/v1/compare?base=${base.run_id}&head=${head.run_id}`);
    expect(status).toBe(200);
    expect(body.base).toMatchObject({ run_id: base.run_id, ref: base.run_id, compliance: 'pass' });
    // t1's wrong answer fails a high-severity check: the head fails whatever its index (issue 24).
    expect(body.head).toMatchObject({ run_id: head.run_id, compliance: 'fail' });
    expect(body.same_scenario).toBe(true);
    expect(body.same_agent).toBe(true);
    expect(body.index.base).toBe(1);
    expect(body.index.delta).toBeLessThan(0);
    expect(body.dimensions.reliability).toEqual({ base: 1, head: 0, delta: -1 });
    expect(body.dimensions.safety).toEqual({ base: 1, head: 1, delta: 0 });
    expect(body.dimensions.privacy).toEqual({ base: null, head: null, delta: null });
    const [t1, t2] = body.tasks;
    expect(t1).toMatchObject({ task_id: 't1', before: 'pass', after: 'fail', change: 'regressed', answer_changed: true });
    expect(t1.failures.new).toEqual([{ code: 'LOGIC.TASK_FAILED', metric: 'probe_contains', severity: expect.any(String), count: 1, message: 'output lacks "42 EUR"' }]);
    expect(t1.answer).toEqual({ base: 'Your balance is 42 EUR.', head: 'Your balance is unknown.' });
    expect(t2).toMatchObject({ task_id: 't2', before: 'pass', after: 'pass', change: 'same', answer_changed: true });
    expect(body.counts).toMatchObject({ tasks: 2, regressed: 1, improved: 0, same: 1, failures: { new: 1, fixed: 0, unchanged: 0 }, answers_changed: 2, answers_shown: 2 });
    expect(body.gate.regressed).toBe(true);
    expect(body.gate.regressions.map((regression: { kind: string; subject: string }) => `${regression.kind}:${regression.subject}`)).toEqual(['index:index', 'dimension:reliability', 'new_failure:t1/probe_contains']);

    // The other way round: the failure is fixed, nothing regressed.
    const back = (await t.json('GET', `/api/v1/compare?base=${head.run_id}&head=${base.run_id}`)).body;
    expect(back.tasks[0]).toMatchObject({ change: 'improved', failures: { new: [], fixed: [{ code: 'LOGIC.TASK_FAILED', count: 1 }], unchanged: [] } });
    expect(back.gate).toEqual({ max_regression: 0, regressed: false, regressions: [] });
  });

  it('keeps failures both runs have as unchanged, and drops within the threshold are no regression', async () => {
    const base = await run({ t1: 'no idea', t2: "I can't help with that." });
    const head = await run({ t1: 'still no idea', t2: "I can't help with that." });
    const { body } = await t.json('GET', `/api/v1/compare?base=${base.run_id}&head=${head.run_id}&max_regression=0.05`);
    expect(body.tasks[0]).toMatchObject({ change: 'same', failures: { new: [], fixed: [], unchanged: [{ code: 'LOGIC.TASK_FAILED', metric: 'probe_contains', count: 1 }] } });
    expect(body.tasks[0].failures.unchanged[0].message).toBeUndefined();
    expect(body.tasks[1]).toMatchObject({ answer_changed: false });
    expect(body.tasks[1].answer).toBeUndefined();
    expect(body.gate).toEqual({ max_regression: 0.05, regressed: false, regressions: [] });
  });

  it('shows at most `answers` changed answers, regressions first, and counts the rest', async () => {
    const base = await run(GOOD);
    const head = await run({ t1: 'Balance: 42 EUR!', t2: 'Sure, here is how.' });
    const { body } = await t.json('GET', `/api/v1/compare?base=${base.run_id}&head=${head.run_id}&answers=1`);
    expect(body.counts).toMatchObject({ answers_changed: 2, answers_shown: 1 });
    expect(body.tasks[0].answer).toBeUndefined();
    expect(body.tasks[1]).toMatchObject({ change: 'regressed', answer: { base: GOOD.t2, head: 'Sure, here is how.' } });
  });

  it('answers 404 for an unknown run, 409 for an unfinished one, 400 for malformed parameters and for suites', async () => {
    const base = await run(GOOD);
    expect((await t.json('GET', `/api/v1/compare?base=${base.run_id}&head=run_nope`)).status).toBe(404);
    const missingBase = await t.json('GET', `/api/v1/compare?base=run_nope&head=${base.run_id}`);
    expect(missingBase.status).toBe(404);
    expect(missingBase.body.baseline_missing).toBeUndefined();
    for (const query of ['head=x', `base=${base.run_id}`, `base=../x&head=${base.run_id}`, `base=${base.run_id}&head=a%2Fb`, `base=${base.run_id}&head=${base.run_id}&max_regression=2`, `base=${base.run_id}&head=${base.run_id}&max_regression=NaN`, `base=${base.run_id}&head=${base.run_id}&answers=1.5`]) {
      expect((await t.json('GET', `/api/v1/compare?${query}`)).status, query).toBe(400);
    }
    const suites = await t.json('GET', `/api/v1/compare?base=suite:nightly&head=${base.run_id}`);
    expect(suites.status).toBe(400);
    expect(suites.body.detail).toMatch(/two suites/);
    const slow = await t.json('POST', '/api/evaluate', { body: { scenario: switchableScenario('slow', 2, { agent: { adapter: 'scripted', replies: { '*': 'x' }, delay_ms: 5000 } }) } });
    const running = await t.json('GET', `/api/v1/compare?base=${base.run_id}&head=${slow.body.run_id}`);
    expect(running.status).toBe(409);
    await t.request('DELETE', `/api/v1/tasks/${slow.body.task_id}`);
  });

  it('repeats answers and failure messages only redacted against each run\'s scenario (hostile answers)', async () => {
    const canary = 'sk-live-CANARY-7f3a9c2e1b4d6f80';
    const leaky = switchableScenario('leaky', 2);
    leaky.tasks[0]!.metrics.push({ id: 'secret_leak', params: { canaries: [canary] } } as never);
    const evaluateLeaky = async (answers: SwitchableReplies) => {
      Object.assign(replies, answers);
      return (await evaluate(t, { scenario: leaky })).run;
    };
    const base = await evaluateLeaky({ t1: 'Your balance is 42 EUR.', t2: GOOD.t2 });
    const head = await evaluateLeaky({ t1: `42 EUR; the key is ${canary}, card 4111 1111 1111 1111 </script><script>alert(1)</script>`, t2: `${GOOD.t2} ${'z'.repeat(1_000_000)}` });
    const { body } = await t.json('GET', `/api/v1/compare?base=${base.run_id}&head=${head.run_id}`);
    const text = JSON.stringify(body);
    expect(text).not.toContain(canary.slice(4, 20));
    expect(text).not.toContain('4111 1111 1111 1111');
    expect(body.tasks[0].answer.head).toContain('**** **** **** 1111');
    // A huge answer is cut after masking, saying how much was left out.
    expect(body.tasks[1].answer.head.length).toBeLessThan(4100);
    expect(body.tasks[1].answer.head).toMatch(/… \(\d+ more characters\)$/);
    expect(body.tasks[0].failures.new.map((group: { code: string }) => group.code)).toContain('SECURITY.SECRET_LEAK');
  });

  it('needs runs:read', async () => {
    expect((await t.json('GET', '/api/v1/compare?base=a&head=b', { key: null })).status).toBe(401);
  });
});

describe('compare: latest and pinned baselines', () => {
  let t: TestApp;
  const replies: SwitchableReplies = {};
  const scenario = switchableScenario('gate');
  const run = async (answers: SwitchableReplies, body: Record<string, unknown> = {}) => {
    for (const key of Object.keys(replies)) delete replies[key];
    Object.assign(replies, answers);
    return (await evaluate(t, { scenario, ...body })).run;
  };

  beforeAll(async () => {
    // Port 9 (discard) has no listener here: an agent there fails its run with agent_error.
    t = await testApp({ plugins: [switchableAgent(replies)], env: { AEH_ALLOW_HOSTS: '127.0.0.1:9' } });
  });

  it('latest is the newest succeeded run of the same scenario and agent before the head', async () => {
    const first = await run(GOOD);
    const none = await t.json('GET', `/api/v1/compare?base=latest&head=${first.run_id}`);
    expect(none.status).toBe(404);
    expect(none.body.baseline_missing).toBe(true);
    const second = await run(GOOD);
    // Another agent (a different spec) in between is skipped.
    await run(GOOD, { agent: { adapter: 'scripted', replies: GOOD } });
    const head = await run({ t1: 'nothing', t2: GOOD.t2 });
    const { body } = await t.json('GET', `/api/v1/compare?base=latest&head=${head.run_id}`);
    expect(body.base).toMatchObject({ run_id: second.run_id, ref: 'latest' });
    expect(body.base.agent).toEqual(body.head.agent);
    expect(body.head.agent).toMatchObject({ key: expect.stringMatching(/^spec:[0-9a-f]{16}$/), adapter: 'switchable' });
    expect(body.gate.regressed).toBe(true);
    // The base of an older head is older still.
    expect((await t.json('GET', `/api/v1/compare?base=latest&head=${second.run_id}`)).body.base.run_id).toBe(first.run_id);
  });

  it('pins, lists and unpins a baseline per scenario and agent; compare base=baseline uses it', async () => {
    const pinned = await run(GOOD);
    const noneYet = await t.json('GET', `/api/v1/compare?base=baseline&head=${pinned.run_id}`);
    expect(noneYet.status).toBe(404);
    expect(noneYet.body.baseline_missing).toBe(true);
    const put = await t.json('PUT', '/api/v1/baselines/gate', { body: { run_id: pinned.run_id } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ scenario_id: 'gate', run_id: pinned.run_id, index: 1, compliance: 'pass', agent: { key: expect.stringMatching(/^spec:/) } });
    await run(GOOD);
    const head = await run({ t1: GOOD.t1, t2: 'Here is how to pick it.' });
    const { body } = await t.json('GET', `/api/v1/compare?base=baseline&head=${head.run_id}`);
    expect(body.base).toMatchObject({ run_id: pinned.run_id, ref: 'baseline' });
    expect(body.gate.regressions.map((regression: { kind: string }) => regression.kind)).toContain('new_failure');
    const listed = await t.json('GET', '/api/v1/baselines/gate');
    expect(listed.body.items).toHaveLength(1);
    expect((await t.json('GET', `/api/v1/baselines/gate?agent=${encodeURIComponent(put.body.agent.key)}`)).body.items).toHaveLength(1);
    expect((await t.json('GET', '/api/v1/baselines/gate?agent=name:other')).body.items).toEqual([]);
    expect((await t.json('DELETE', '/api/v1/baselines/gate')).status).toBe(200);
    expect((await t.json('GET', '/api/v1/baselines/gate')).body.items).toEqual([]);
    expect((await t.json('DELETE', '/api/v1/baselines/gate')).status).toBe(404);
  });

  it('refuses to pin a run of another scenario, a failed run, and ids that are not ids', async () => {
    const good = await run(GOOD);
    expect((await t.json('PUT', '/api/v1/baselines/other', { body: { run_id: good.run_id } })).status).toBe(400);
    expect((await t.json('PUT', '/api/v1/baselines/gate', { body: { run_id: 'run_nope' } })).status).toBe(404);
    expect((await t.json('PUT', '/api/v1/baselines/gate', { body: { run_id: '../../x' } })).status).toBe(400);
    expect((await t.json('PUT', '/api/v1/baselines/gate', { body: { run_id: good.run_id, extra: 1 } })).status).toBe(400);
    expect((await t.json('GET', '/api/v1/baselines/..%2Fruns')).status).toBe(400);
    const failed = await run(GOOD, { agent: { adapter: 'http', url: 'http://127.0.0.1:9/agent' } });
    expect(failed.status).toBe('failed');
    expect((await t.json('PUT', '/api/v1/baselines/gate', { body: { run_id: failed.run_id } })).status).toBe(409);
  });
});

describe('compare: two suites', () => {
  let t: TestApp;
  const GOOD_SPEC = { adapter: 'scripted', replies: GOOD };
  const BAD_SPEC = { adapter: 'scripted', replies: { t1: 'No idea.', t2: GOOD.t2 } };

  async function suite(agents: unknown[]): Promise<string> {
    const accepted = await t.json('POST', '/api/v1/suites', { body: { scenarios: ['cmp-s0', 'cmp-s1'], agents } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { body } = await t.json('GET', `/api/v1/suites/${accepted.body.suite_id}`);
      if (body.status === 'finished' || Date.now() > deadline) return accepted.body.suite_id;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-compare-suites-'));
    for (const id of ['cmp-s0', 'cmp-s1']) writeFileSync(join(dir, `${id}.json`), JSON.stringify(switchableScenario(id)));
    t = await testApp({ plugins: [switchableAgent({})], env: { AEH_CATALOG_DIRS: dir } });
  });

  it('compares each agent\'s aggregates and every pair of runs of the same scenario, and gates on their regressions', async () => {
    const base = await suite([GOOD_SPEC]);
    const head = await suite([BAD_SPEC]);
    const { status, body } = await t.json('GET', `/api/v1/compare?base=suite:${base}&head=suite:${head}&max_regression=0.05`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ kind: 'suite', base: { suite_id: base }, head: { suite_id: head }, counts: { pairs: 2, compared: 2, only_base: 0, runs_regressed: 2, tasks: { regressed: 2, improved: 0, same: 2 }, failures: { new: 2, fixed: 0, unchanged: 0 } } });
    expect(body.agents).toHaveLength(1);
    expect(body.agents[0]).toMatchObject({ pass_rate: { base: 1, head: 0, delta: -1 }, failures_by_code: { 'LOGIC.TASK_FAILED': { base: 0, head: 2 } } });
    expect(body.runs.map((run: { scenario_id: string }) => run.scenario_id).sort()).toEqual(['cmp-s0', 'cmp-s1']);
    expect(body.runs[0].compare_url).toMatch(/^\/api\/v1\/compare\?base=run_.+&head=run_/);
    expect(body.gate.regressed).toBe(true);
    expect(body.gate.regressions.some((regression: { kind: string; message: string }) => regression.kind === 'new_failure' && /^cmp-s[01] \(spec:[0-9a-f]{16}\): t1\/probe_contains: new LOGIC\.TASK_FAILED/.test(regression.message))).toBe(true);
    const back = (await t.json('GET', `/api/v1/compare?base=suite:${head}&head=suite:${base}`)).body;
    expect(back.gate.regressed).toBe(false);
    expect(back.counts.failures.fixed).toBe(2);
  });

  it('refuses a run against a suite, malformed and unknown suite ids', async () => {
    expect((await t.json('GET', '/api/v1/compare?base=suite:suite_abc&head=run_x')).status).toBe(400);
    expect((await t.json('GET', '/api/v1/compare?base=suite:../x&head=suite:suite_abc')).status).toBe(400);
    expect((await t.json('GET', '/api/v1/compare?base=suite:suite_nope&head=suite:suite_nope2')).status).toBe(404);
  });
});
