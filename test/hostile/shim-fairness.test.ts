/**
 * Hostile: one principal's slow SQL cannot starve another (issue 25 item 7). A run whose agent floods the
 * world with queries that each run to the shim budget once filled the shared worker pool: another principal's
 * spec-to-eval waited behind every one of them (0.01 s became 15 s). Now a run has at most
 * `AEH_RUN_SHIM_CALLS` calls in the pool (half of it by default) and waiting principals take turns for the
 * workers. Asserted on the order the pool dispatches jobs in, never on timings.
 */
import { describe, it, expect, afterAll } from 'vitest';
import type { Offload, OffloadJob } from '../../core/capabilities.ts';
import { createWorkerPool } from '../../runtime/node/offload.ts';
import { testApp } from '../helpers.ts';
import { waitForTask } from '../evaluation-fixtures.ts';

const SMOKE = '# PRD: Smoke\n\n## Overview\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n- Accept a return within 30 days\n- Refuse a return after 90 days\n';
const TASKS = 6;
const customers = Array.from({ length: 400 }, (_, index) => ({ id: index + 1, name: `c${index}` }));
const SLOW = 'SELECT count(*) FROM customers a, customers b, customers c, customers d';

/** Six independent tasks, each asking one query that runs until the shim budget stops it. */
const flood = {
  id: 'sql-flood', title: 'A flood of slow queries', industry: 'Fintech', use_case: 'Reporting', tags: ['shims'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: Object.fromEntries(Array.from({ length: TASKS }, (_, index) => [`q${index}`, { output: 'done', tool_calls: [{ name: 'sql.query', arguments: { sql: SLOW } }] }])) },
  topology: [], conversation: 'per_task', concurrency: TASKS,
  enabled_shims: ['sql'], initial_state: { sql: { schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)'], rows: { customers } } },
  tasks: Array.from({ length: TASKS }, (_, index) => ({ id: `q${index}`, input: 'count', expected_outcome: [{ target: 'tool_calls', where: { name: 'sql.query' }, property: '[0].error.code', expected: 'timeout' }], metrics: [{ id: 'state_match' }] })),
};

type Event = { kind: 'queued' | 'started' | 'settled'; group: string; name: string };

describe('hostile: shim calls share the worker pool fairly', () => {
  const events: Event[] = [];
  let firstShimCall: () => void;
  const shimCallStarted = new Promise<void>((resolve) => (firstShimCall = resolve));
  const pool = createWorkerPool({
    size: 2,
    onStart(job) {
      events.push({ kind: 'started', group: job.group ?? '', name: job.name });
      if (job.name === 'runShimCall') firstShimCall();
    },
  });
  // The pool as the service sees it, noting when each job is asked for and when it settles.
  const watched: Offload = {
    size: pool.size,
    run(job: OffloadJob) {
      events.push({ kind: 'queued', group: job.group ?? '', name: job.name });
      const settled = () => events.push({ kind: 'settled', group: job.group ?? '', name: job.name });
      return pool.run(job).finally(settled);
    },
    close: () => pool.close(),
  };
  afterAll(() => pool.close());

  it('keeps another principal\'s spec-to-eval from queueing behind one run\'s slow queries', async () => {
    // Each query spins in a worker until the budget stops it, so the budget is much of this test's CPU (1,500 ms
    // was 9 s for the six, 600 ms 3.6 s). It only has to outlast the conversion's request, sent as the first query
    // starts: without the fairness, the run's six queries fill the pool two at a time, and the conversion waits
    // behind four. The budget counts the worker's CPU time, and a fresh worker's loading comes before it starts
    // (runtime/node/offload.ts), so 200 ms of spinning outlasts that request however busy the machine is.
    const t = await testApp({ env: { AEH_SHIM_BUDGET_MS: '200' }, capabilities: { offload: watched } });
    const other = (await t.json('POST', '/api/v1/keys', { body: { name: 'other-team', roles: ['operator'] } })).body.secret as string;
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: flood } });
    expect(accepted.status).toBe(202);
    await shimCallStarted;
    const converted = await t.json('POST', '/api/v1/spec-to-eval', { body: { markdown: SMOKE }, key: other });
    expect(converted.status).toBe(200);
    const task = await waitForTask(t, accepted.body.task_id, 120_000);
    expect(task.status).toBe('succeeded');

    const shimGroup = events.find((event) => event.name === 'runShimCall')!.group;
    const specGroup = events.find((event) => event.name === 'convertInWorker')!.group;
    expect(shimGroup).toMatch(/^principal:/);
    expect(specGroup).toMatch(/^principal:/);
    expect(specGroup).not.toBe(shimGroup);
    // The run never had more than its share of the pool (AEH_RUN_SHIM_CALLS: half of 2 workers) asked for at once.
    let inPool = 0;
    let most = 0;
    for (const event of events.filter((item) => item.name === 'runShimCall')) {
      inPool += event.kind === 'queued' ? 1 : event.kind === 'settled' ? -1 : 0;
      most = Math.max(most, inPool);
    }
    expect(most).toBe(1);
    expect(events.filter((event) => event.name === 'runShimCall' && event.kind === 'started')).toHaveLength(TASKS);
    // Between the conversion being asked for and its start, at most one of the run's queries went first (one
    // already waiting when it came: the groups' turns), never the run's whole backlog.
    const queuedAt = events.findIndex((event) => event.name === 'convertInWorker' && event.kind === 'queued');
    const startedAt = events.findIndex((event) => event.name === 'convertInWorker' && event.kind === 'started');
    expect(events.slice(queuedAt, startedAt).filter((event) => event.group === shimGroup && event.kind === 'started').length).toBeLessThanOrEqual(1);
    await t.app.close();
  }, 180_000);
});
