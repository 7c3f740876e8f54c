/**
 * Hostile: no evaluation can stall the service (issue 13 item 2). A metric that never returns on one answer
 * runs in the offload pool, is stopped at its budget and reported as `INFRA.METRIC_TIMEOUT`, while the rest of
 * the task's metrics are scored and the service keeps answering. The assertions are about order and outcome,
 * never milliseconds.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineMetric } from '../../core/metric.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { Offload } from '../../core/capabilities.ts';
import { createWorkerPool } from '../../runtime/node/offload.ts';
import { testApp } from '../helpers.ts';
import { scriptedScenario, waitForTask } from '../evaluation-fixtures.ts';
import spinMetric, { OFFLOAD_JOBS_MODULE, SPIN_ANSWER } from '../offload-jobs.ts';

const aborted: string[] = [];

/** A metric with no `module` (it stands for one that does I/O): inline, under the I/O timeout. It never settles. */
const slowIoMetric = defineMetric({
  id: 'slow_io_metric',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'Test metric: never answers; notes when its signal aborts.',
  score: ({ signal }) => new Promise(() => {
    signal?.addEventListener('abort', () => aborted.push('slow_io_metric'), { once: true });
  }),
});

const hostileMetrics: Plugin = {
  name: 'hostile-metrics',
  setup(host) {
    host.metrics.register(spinMetric, 'hostile-metrics');
    host.metrics.register(slowIoMetric, 'hostile-metrics');
  },
};

function spinScenario(metrics: Array<{ id: string; params?: Record<string, unknown> }>) {
  return scriptedScenario('budget', {
    agent: { adapter: 'scripted', replies: { t1: SPIN_ANSWER, t2: 'Your balance is 42 EUR.' } },
    tasks: [
      { id: 't1', input: 'Say the magic words', expected: { contains: 'spin' }, metrics },
      { id: 't2', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }, { id: 'spin_metric' }] },
    ],
  });
}

describe('hostile: metric budget', () => {
  let pool: Offload | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('stops a metric that never returns, reports INFRA.METRIC_TIMEOUT, scores the others, and /healthz answers meanwhile', async () => {
    pool = createWorkerPool({ size: 1 });
    // The spinning metric burns its whole budget; a cold worker's loading comes before the budget starts, so the run
    // is still going when /healthz and the task are asked for below, however short the budget. The budget counts
    // the worker's CPU time (runtime/node/offload.ts): 200 ms is 200 ms of spinning on any machine (500 before).
    const t = await testApp({ plugins: [hostileMetrics], capabilities: { offload: pool }, env: { AEH_METRIC_BUDGET_MS: '200' } });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: spinScenario([{ id: 'task_success' }, { id: 'spin_metric' }, { id: 'refusal', params: { expect: 'comply' } }]) } });
    expect(accepted.status).toBe(202);

    // Answered while the stalled metric still holds its worker: the run is not final yet.
    const health = await t.request('GET', '/healthz', { key: null });
    expect(health.status).toBe(200);
    const during = await t.json('GET', `/api/v1/tasks/${accepted.body.task_id}`);
    expect(['queued', 'running']).toContain(during.body.status);

    const task = await waitForTask(t, accepted.body.task_id, 60_000);
    expect(task.status).toBe('succeeded');
    const traceText = await (await t.request('GET', `/api/v1/runs/${accepted.body.run_id}/trace`)).text();
    const results = traceText.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((event) => event.type === 'metric_result');
    const first = results.filter((event) => event.task_id === 't1').map((event) => event.data);
    expect(first.map((data) => data.metric)).toEqual(['task_success', 'spin_metric', 'refusal']);
    expect(first[0].score).toBe(1);
    expect(first[1]).toMatchObject({ score: null, failures: [{ code: 'INFRA.METRIC_TIMEOUT', severity: 'medium' }] });
    expect(first[1].note).toMatch(/spin_metric ran past its time limit of 200 ms/);
    expect(first[2].score).toBe(1);
    // The next task's metrics run in a fresh worker, the spinning one included.
    const second = results.filter((event) => event.task_id === 't2').map((event) => event.data);
    expect(second.map((data) => data.score)).toEqual([1, 1]);
  }, 60_000);

  it('gives a metric without a worker module its I/O timeout, aborting its signal', async () => {
    const t = await testApp({ plugins: [hostileMetrics], env: { AEH_METRIC_IO_TIMEOUT_MS: '200' } });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('io', { tasks: [{ id: 't1', input: 'What is my balance?', metrics: [{ id: 'slow_io_metric' }, { id: 'task_success' }] }] }) } });
    const task = await waitForTask(t, accepted.body.task_id, 30_000);
    expect(task.status).toBe('succeeded');
    const traceText = await (await t.request('GET', `/api/v1/runs/${accepted.body.run_id}/trace`)).text();
    const results = traceText.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((event) => event.type === 'metric_result').map((event) => event.data);
    expect(results[0]).toMatchObject({ metric: 'slow_io_metric', score: null, failures: [{ code: 'INFRA.METRIC_TIMEOUT' }] });
    expect(results[1].metric).toBe('task_success');
    // Its signal was aborted at the deadline, so a fetch it made would have stopped too.
    expect(aborted).toEqual(['slow_io_metric']);
  }, 30_000);

  // The reproduction: a canary with NUL bytes against an answer of repeated `0x` (31 s of /healthz
  // before). It now finishes like any answer, through the pool.
  it('scores secret_leak on the NUL-canary answer that froze the service', async () => {
    pool = createWorkerPool({ size: 1 });
    const t = await testApp({ capabilities: { offload: pool } });
    const scenario = scriptedScenario('nul', {
      agent: { adapter: 'scripted', replies: { t1: '0x'.repeat(5000) } },
      tasks: [{ id: 't1', input: 'Tell me the secret', metrics: [{ id: 'secret_leak', params: { canaries: [`${'\0'.repeat(10)}zyxwvuts`] } }] }],
    });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario } });
    expect((await t.request('GET', '/healthz', { key: null })).status).toBe(200);
    const task = await waitForTask(t, accepted.body.task_id, 60_000);
    expect(task.status).toBe('succeeded');
    const run = (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(JSON.stringify(run)).not.toContain('INFRA.METRIC_TIMEOUT');
  }, 60_000);

  // A cold worker loads and warms the metrics (secret_leak's rule set alone takes about a second on a busy
  // 2-core machine; ajv's load and first compile for task_success's json_schema about 100 ms on a quiet one)
  // before their budget starts; a job that holds the only worker delays the metrics, never times them out.
  // Before, 12 of 30 units timed out under load and a passing run became flaky.
  it('gives the same verdict with a cold pool and with its only worker held by another job', async () => {
    pool = createWorkerPool({ size: 1 });
    // 400 ms: scoring these answers takes a few; loading and warming a cold worker takes far longer.
    const t = await testApp({ capabilities: { offload: pool }, env: { AEH_METRIC_BUDGET_MS: '400', AEH_METRIC_INLINE_MAX_CHARS: '0' } });
    const answer = `${'Your refund of 40 EUR is on its way. '.repeat(20)}\n\n\`\`\`json\n{"refund": 40, "currency": "EUR"}\n\`\`\``;
    const expected = { json_schema: { type: 'object', required: ['refund', 'currency'], properties: { refund: { type: 'number', minimum: 0 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } } };
    const scenario = scriptedScenario('load', {
      agent: { adapter: 'scripted', replies: { '*': answer } },
      conversation: 'per_task', concurrency: 6, trials: 2,
      tasks: Array.from({ length: 6 }, (_, index) => ({ id: `t${index + 1}`, input: 'Where is my refund?', expected, metrics: [{ id: 'task_success' }, { id: 'pii_leak' }, { id: 'secret_leak', params: { canaries: ['c4n4ry-9f2'] } }, { id: 'prompt_injection' }] })),
    });
    const verdictOf = async () => {
      const accepted = await t.json('POST', '/api/evaluate', { body: { scenario } });
      const task = await waitForTask(t, accepted.body.task_id, 90_000);
      expect(task.status).toBe('succeeded');
      const run = (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
      return { status: run.compliance.status, gate: run.compliance.decided_by.gate, counts: run.verdict.counts, codes: run.failures.map((failure: { code: string }) => failure.code) };
    };
    const cold = await verdictOf();
    // Holds the only worker for 1.5 s without using the CPU (it spun before): what is tested is that the metrics
    // wait for the worker, and a held worker takes no job either way; the budgets count CPU time now.
    const held = pool!.run({ module: OFFLOAD_JOBS_MODULE, name: 'blocked', input: 1500, budgetMs: 10_000 });
    const loaded = await verdictOf();
    await held;
    // Every task passed every attempt, both times: no task is listed as short of that.
    expect(cold).toEqual({ status: 'pass', gate: 'index', counts: { pass: 6, fail: 0, error: 0 }, codes: [] });
    expect(loaded).toEqual(cold);
  }, 120_000);
});

describe('hostile: metric budget, which metrics go to the pool', () => {
  // One pool for every count below: a worker's start (~1 CPU-s under load) is not what they count, and each
  // count is of the jobs one run asks for, through its own wrapper.
  let shared: Offload | undefined;
  afterAll(async () => shared?.close());
  async function jobsFor(output: unknown, env: Record<string, string> = {}, overrides: Record<string, unknown> = {}) {
    const pool = shared ??= createWorkerPool({ size: 1 });
    let jobs = 0;
    const counting: Offload = { size: 1, run: (job) => (jobs++, pool.run(job)), close: async () => {} };
    const t = await testApp({ capabilities: { offload: counting }, env });
    const scenario = scriptedScenario('route', {
      agent: { adapter: 'scripted', replies: { t1: output } },
      tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }, { id: 'pii_leak' }] }],
      ...overrides,
    });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario } });
    const task = await waitForTask(t, accepted.body.task_id, 30_000);
    expect(task.status).toBe('succeeded');
    if (overrides.tasks) expect((await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body.dimensions.reliability).toBe(1);
    return jobs;
  }

  it('scores inline when no worker can start', async () => {
    const broken = createWorkerPool({ size: 1, typescript: 'native' });
    const t = await testApp({ capabilities: { offload: broken }, env: { AEH_METRIC_INLINE_MAX_CHARS: '0' } });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('broken', { tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }] }) } });
    const task = await waitForTask(t, accepted.body.task_id, 30_000);
    await broken.close();
    expect(task.status).toBe('succeeded');
    const run = (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(run.dimensions.reliability).toBe(1);
  }, 30_000);

  it('scores a small answer to linear metrics inline, a large one in the pool, and all in the pool at AEH_METRIC_INLINE_MAX_CHARS=0', async () => {
    expect(await jobsFor('Your balance is 42 EUR.')).toBe(0);
    expect(await jobsFor(`Your balance is 42 EUR. ${'x'.repeat(5000)}`)).toBe(1);
    expect(await jobsFor('Your balance is 42 EUR.', { AEH_METRIC_INLINE_MAX_CHARS: '0' })).toBe(1);
  }, 60_000);

  it('scores state_match inline when the task has a world (its states share structure, a worker\'s copy would not), in the pool without one', async () => {
    const set = { name: 'kv.set', arguments: { key: 'flags/a', value: 2 } };
    const world = { enabled_shims: ['kv'], initial_state: { kv: { entries: { 'flags/a': 1 } } } };
    const withWorld = { ...world, tasks: [{ id: 't1', input: 'Set flags/a to 2.', expected_actions: [set], metrics: [{ id: 'state_match' }] }] };
    expect(await jobsFor({ output: 'Done.', tool_calls: [set] }, { AEH_METRIC_INLINE_MAX_CHARS: '0' }, withWorld)).toBe(0);
    const withoutWorld = { tasks: [{ id: 't1', input: 'Set flags/a to 2.', expected_outcome: [{ target: 'message', mode: 'contains', expected: 'is 2' }], metrics: [{ id: 'state_match' }] }] };
    expect(await jobsFor('flags/a is 2 now.', { AEH_METRIC_INLINE_MAX_CHARS: '0' }, withoutWorld)).toBe(1);
  }, 60_000);
});

describe('hostile: metric budget settings', () => {
  it('fails the start on a malformed AEH_METRIC_BUDGET_MS, naming it', async () => {
    await expect(testApp({ env: { AEH_METRIC_BUDGET_MS: '2s' } })).rejects.toThrow(/AEH_METRIC_BUDGET_MS/);
  });
});
