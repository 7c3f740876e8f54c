/**
 * A run's record before it ends (core/domain/run-record.ts): issue 36's seventh sitting stopped writing
 * `run.json` at submission. Readers get the record the submission used to write, rebuilt from the plan and the
 * task record, in this process and after a restart; a `run.json` an earlier version wrote at submission is read
 * as it is; a blob a queued run's plan refers to is kept past the collector's grace.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../../test/evaluation-fixtures.ts';
import { stalledAgent } from '../../../test/agent-fixtures.ts';
import { baseRunRecord, readRun } from '../../../core/domain/run-record.ts';
import { keys, type TaskRecord } from '../../../core/domain/runs.ts';
import { createStore } from '../../storage/unstorage-store.ts';
import { createStorage } from 'unstorage';

const stalled = (id: string) => scriptedScenario(id, { agent: { adapter: 'stalled' }, tasks: [{ id: 't1', input: 'balance?', metrics: [{ id: 'probe_contains' }] }] });

function fsEnv() {
  const root = mkdtempSync(join(tmpdir(), 'aeh-pending-run-'));
  return { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh'), AEH_CONCURRENCY: '1' };
}

describe('evaluation: the record of a run not ended', () => {
  it('is rebuilt from the plan and the task, with no run.json stored, before and after a restart', async () => {
    const env = fsEnv();
    const first = await testApp({ plugins: [testMetrics, stalledAgent], env });
    const accepted = (await first.json('POST', '/api/evaluate', { body: { scenario: stalled('pending') } })).body;
    expect(existsSync(join(env.AEH_DATA_DIR, keys.run(accepted.run_id)))).toBe(false);
    const task = JSON.parse(readFileSync(join(env.AEH_DATA_DIR, keys.task(accepted.task_id)), 'utf8')) as TaskRecord;
    const shown = (await first.json('GET', `/api/v1/runs/${accepted.run_id}`)).body;
    expect(shown).toMatchObject({ run_id: accepted.run_id, task_id: accepted.task_id, scenario_id: 'pending', scenario_title: expect.any(String), created_at: task.created_at, finished_at: null, tasks: { total: 1 } });
    expect(shown.scenario_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.agent).toMatchObject({ adapter: 'stalled' });
    expect(['queued', 'running']).toContain(shown.status);
    const listed = (await first.json('GET', '/api/v1/runs')).body;
    expect(listed.items.map((run: { run_id: string }) => run.run_id)).toContain(accepted.run_id);
    await first.app.close();
    // A new process (the first one stopped mid-run) reads the same record, and lists the run.
    const second = await testApp({ plugins: [testMetrics, stalledAgent], env });
    const again = (await second.json('GET', `/api/v1/runs/${accepted.run_id}`)).body;
    expect({ ...again, status: undefined, started_at: undefined }).toEqual({ ...shown, status: undefined, started_at: undefined });
    expect((await second.json('GET', '/api/v1/runs')).body.items.map((run: { run_id: string }) => run.run_id)).toContain(accepted.run_id);
    await second.app.close();
  });

  it('equals what the submission wrote before, and reads a run.json an earlier version stored at submission', async () => {
    const store = createStore('memory-test', createStorage());
    const task: TaskRecord = { task_id: 'task_1', run_id: 'run_1', status: 'queued', progress: { done: 0, total: 3 }, created_at: '2026-12-07T23:00:00.000Z', started_at: null, finished_at: null };
    const scenario = { id: 'sc', title: 'A scenario' };
    const agent = { adapter: 'scripted', config_hash: 'a'.repeat(64) };
    await store.setJson(keys.sidecar('run_1', 'scenario.json'), { run_id: 'run_1', task_id: 'task_1', seed: null, scenario, variants: [], agent, scenario_hash: 'b'.repeat(64), origin: 'inline' });
    expect(await readRun(store, 'run_1')).toBeNull();
    await store.setJson(keys.task('task_1'), task);
    expect(await readRun(store, 'run_1')).toEqual(baseRunRecord(task, scenario, 3, agent as never, { content_hash: 'b'.repeat(64), origin: 'inline' }));
    // A task record naming another run is not this run's.
    await store.setJson(keys.task('task_1'), { ...task, run_id: 'run_2' });
    expect(await readRun(store, 'run_1')).toBeNull();
    // What main's code stored at submission is read as stored.
    const old = { ...baseRunRecord(task, scenario, 3), scenario_title: 'stored at submission' };
    await store.setJson(keys.run('run_1'), old);
    expect(await readRun(store, 'run_1')).toEqual(old);
  });
});
