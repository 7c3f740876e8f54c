import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';
import { evaluate, scriptedScenario, testMetrics, waitForTask } from './evaluation-fixtures.ts';

/** An adapter that counts how many calls are in flight at once. */
function gauge() {
  const state = { active: 0, peak: 0, calls: 0 };
  const plugin: Plugin = {
    name: 'gauge-agent',
    setup(host) {
      host.agents.register({
        name: 'gauge',
        description: 'test: counts concurrent calls',
        async call() {
          state.active++;
          state.calls++;
          state.peak = Math.max(state.peak, state.active);
          await new Promise((resolve) => setTimeout(resolve, 2));
          state.active--;
          return { output: 'Your balance is 42 EUR.' };
        },
      }, 'gauge-agent');
    },
  };
  return { state, plugin };
}

describe('evaluation: bounded queue', () => {
  it('runs a burst of 1,000 evaluations AEH_CONCURRENCY at a time and drops none', async () => {
    const { state, plugin } = gauge();
    const t = await testApp({ plugins: [testMetrics, plugin], env: { AEH_CONCURRENCY: '3', AEH_RATE_LIMIT_PER_MINUTE: '100000', AEH_MAX_QUEUED_PER_PRINCIPAL: '1000' } });
    const scenario = scriptedScenario('burst', { agent: { adapter: 'gauge' }, tasks: [{ id: 't1', input: 'balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }] });
    const accepted = await Promise.all(Array.from({ length: 1000 }, () => t.json('POST', '/api/evaluate', { body: { scenario } })));
    expect(accepted.every((response) => response.status === 202)).toBe(true);
    // The last accepted first: while it runs the others finish, and each is then read about once instead of
    // being polled every 10 ms while the ones before it run. Still an event wait: no task is assumed done.
    await waitForTask(t, accepted.at(-1)!.body.task_id, 60_000);
    const tasks = [];
    for (const response of accepted) tasks.push(await waitForTask(t, response.body.task_id, 60_000));
    expect(tasks.filter((task) => task.status === 'succeeded')).toHaveLength(1000);
    expect(state.calls).toBe(1000);
    expect(state.peak).toBeLessThanOrEqual(3);
    expect(state.peak).toBeGreaterThan(1);
    expect((await t.json('GET', '/api/info')).body.counts.runs).toBe(1000);
  }, 120_000);
});

/** An agent whose call waits until it is cancelled; `called` resolves when the first call starts. */
function heldAgent() {
  let started!: () => void;
  const called = new Promise<void>((resolve) => { started = resolve; });
  const plugin: Plugin = {
    name: 'held-agent',
    setup(host) {
      host.agents.register({
        name: 'held',
        description: 'test: answers only when cancelled',
        call(_input, { signal }) {
          started();
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
        },
      }, 'held-agent');
    },
  };
  return { plugin, called };
}

describe('evaluation: cancellation', () => {
  it('cancels a queued task at once and a running one mid-call', async () => {
    // Waits on the agent's first call, an event: the scripted agent (idempotent) shows `running` only from its
    // first checkpoint, after its first call, and polling the status for it spent ~75 s to no end.
    const held = heldAgent();
    const t = await testApp({ plugins: [testMetrics, held.plugin], env: { AEH_CONCURRENCY: '1' } });
    const slow = scriptedScenario('slow', { agent: { adapter: 'held', timeout_ms: 300_000 } });
    const running = (await t.json('POST', '/api/evaluate', { body: { scenario: slow } })).body;
    const queued = (await t.json('POST', '/api/evaluate', { body: { scenario: slow } })).body;
    await held.called;

    const cancelQueued = await t.json('DELETE', queued.status_url);
    expect(cancelQueued.status).toBe(200);
    expect(cancelQueued.body).toMatchObject({ status: 'cancelled', task_id: queued.task_id });
    expect((await t.json('GET', `/api/v1/runs/${queued.run_id}`)).body.status).toBe('cancelled');

    const cancelRunning = await t.json('DELETE', running.status_url);
    expect(cancelRunning.status).toBe(200);
    expect(cancelRunning.body.status).toBe('cancelled');
    const run = (await t.json('GET', `/api/v1/runs/${running.run_id}`)).body;
    expect(run).toMatchObject({ status: 'cancelled', compliance: null });
    const trace = (await (await t.request('GET', `/api/v1/runs/${running.run_id}/trace`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(trace.map((event) => event.type)).toEqual(['run_start', 'input', 'run_end']);
    expect(trace[2].data.status).toBe('cancelled');

    expect((await t.json('DELETE', running.status_url)).status).toBe(409);
    expect((await t.json('DELETE', '/api/v1/tasks/task_nope')).status).toBe(404);
    // The queue keeps going after cancellations.
    expect((await evaluate(t, { scenario: scriptedScenario('after') })).task.status).toBe('succeeded');
  });
});

describe('evaluation: status while the first call is in flight', () => {
  it('shows a run of an idempotent adapter (scripted) as running while its first, slow call is in flight', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const slow = scriptedScenario('slow-first', { agent: { adapter: 'scripted', delay_ms: 300_000, timeout_ms: 300_000, replies: { '*': 'x' } } });
    const accepted = (await t.json('POST', '/api/evaluate', { body: { scenario: slow } })).body;
    // Such a run skips its `running` write when it ends within 250 ms; this one is marked from then on. The
    // bound is a hang guard: before the fix the status stayed `queued` for the whole call.
    let status = '';
    for (let i = 0; i < 12_000 && status !== 'running'; i++) {
      status = (await t.json('GET', accepted.status_url)).body.status;
      if (status !== 'running') await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(status).toBe('running');
    expect((await t.json('DELETE', accepted.status_url)).body.status).toBe('cancelled');
    expect((await t.json('GET', accepted.status_url)).body.status).toBe('cancelled');
  });
});

describe('evaluation: agent failures', () => {
  it('ends the run in error with INFRA.AGENT_TIMEOUT when the agent exceeds timeout_ms', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const scenario = scriptedScenario('timeout', { agent: { adapter: 'scripted', delay_ms: 60_000, timeout_ms: 30, replies: {} } });
    const { task, run, trace } = await evaluate(t, { scenario });
    expect(task).toMatchObject({ status: 'failed', error: { code: 'agent_timeout' } });
    expect(run).toMatchObject({ status: 'failed', compliance: { status: 'error' }, error: { code: 'agent_timeout' } });
    expect(run.failures).toEqual([expect.objectContaining({ code: 'INFRA.AGENT_TIMEOUT', task_id: 't1', severity: 'critical', event_index: 2 })]);
    expect(trace.map((event: any) => event.type)).toEqual(['run_start', 'input', 'error', 'run_end']);
    expect(trace[2].data).toMatchObject({ code: 'agent_timeout', failure_code: 'INFRA.AGENT_TIMEOUT' });
  });

  it('ends the run in error with INFRA.AGENT_ERROR when the adapter throws', async () => {
    const broken: Plugin = { name: 'broken-agent', setup(host) { host.agents.register({ name: 'broken', description: 'test', async call() { throw new Error('socket hang up'); } }, 'broken-agent'); } };
    const t = await testApp({ plugins: [testMetrics, broken] });
    const { run } = await evaluate(t, { scenario: scriptedScenario('broken', { agent: { adapter: 'broken' } }) });
    expect(run).toMatchObject({ status: 'failed', compliance: { status: 'error' }, error: { code: 'agent_error', message: expect.stringContaining('socket hang up') } });
    expect(run.failures[0].code).toBe('INFRA.AGENT_ERROR');
  });
});
