/**
 * One write ends a run (issue 36, eighth sitting): the final `run.json` keeps its task's end (`task_end`) and the
 * task's file is left as its last checkpoint wrote it; `readTask` lays the end over it. Pins that the API shows
 * the task and the run as before, that a crash after that write (before the release) resumes nothing and
 * releases the task, and that task files ended by earlier versions are read as they are.
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from 'unstorage';
import { testApp } from '../../../test/helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from '../../../test/evaluation-fixtures.ts';
import { keys, readTask, type StoredRunRecord, type TaskRecord } from '../../../core/domain/runs.ts';
import { readRun } from '../../../core/domain/run-record.ts';
import { createStore } from '../../storage/unstorage-store.ts';
import { ACTIVE_JOURNAL_KEY, readJournal } from '../submission/active-tasks.ts';

function fsEnv() {
  const root = mkdtempSync(join(tmpdir(), 'aeh-final-record-'));
  return { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh'), AEH_CONCURRENCY: '1' };
}

function withoutToken(task: TaskRecord): TaskRecord {
  const { handoff: _handoff, ...rest } = task;
  return rest;
}

const readStored = <T>(dataDir: string, key: string) => JSON.parse(readFileSync(join(dataDir, key), 'utf8')) as T;

describe('evaluation: the record that ends a run', () => {
  it('ends the task in run.json; the API shows the task ended and the run without task_end', async () => {
    const env = fsEnv();
    const t = await testApp({ plugins: [testMetrics], env });
    const { accepted, task, run } = await evaluate(t, { scenario: scriptedScenario('ends') });
    expect(task).toMatchObject({ task_id: accepted.body.task_id, run_id: run.run_id, status: 'succeeded' });
    expect(task.progress.done).toBe(task.progress.total);
    expect(task.finished_at).toBe(run.finished_at);
    expect(task.started_at).toEqual(expect.any(String));
    expect(task).not.toHaveProperty('handoff');
    // The task's file is as the submission wrote it (a short idempotent run writes no checkpoint).
    const file = readStored<TaskRecord>(env.AEH_DATA_DIR, keys.task(task.task_id));
    expect(file.status).toBe('queued');
    expect(file.handoff).toEqual(expect.any(String));
    const stored = readStored<StoredRunRecord>(env.AEH_DATA_DIR, keys.run(run.run_id));
    expect(stored.task_end).toEqual({ status: 'succeeded', progress: task.progress, started_at: task.started_at, finished_at: task.finished_at });
    expect(run).not.toHaveProperty('task_end');
    // Exactly the record the end wrote before: the file's, its token dropped, the end's fields set.
    expect(await readTask((await t.app.ready).store, task.task_id)).toEqual({ ...withoutToken(file), status: 'succeeded', progress: task.progress, started_at: task.started_at, finished_at: task.finished_at });
    // An ended task cannot be cancelled.
    expect((await t.json('DELETE', `/api/v1/tasks/${task.task_id}`)).status).toBe(409);
  });

  it('after a crash between that write and the release, a new process resumes nothing and releases the task', async () => {
    const env = fsEnv();
    const first = await testApp({ plugins: [testMetrics], env });
    const { task, run } = await evaluate(first, { scenario: scriptedScenario('crashed-after-end') });
    await first.app.close();
    const trace = readFileSync(join(env.AEH_DATA_DIR, keys.trace(run.run_id)));
    const certificate = readFileSync(join(env.AEH_DATA_DIR, keys.certificate(run.run_id)));
    // The release never happened: the journal still lists the task, whose file is not final.
    appendFileSync(join(env.AEH_DATA_DIR, ACTIVE_JOURNAL_KEY), `+${task.task_id}\n`);
    expect(readJournal(readFileSync(join(env.AEH_DATA_DIR, ACTIVE_JOURNAL_KEY))).has(task.task_id)).toBe(true);
    const second = await testApp({ plugins: [testMetrics], env });
    for (let tries = 0; tries < 200; tries++) {
      if (!readJournal(readFileSync(join(env.AEH_DATA_DIR, ACTIVE_JOURNAL_KEY))).has(task.task_id)) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(readJournal(readFileSync(join(env.AEH_DATA_DIR, ACTIVE_JOURNAL_KEY))).has(task.task_id)).toBe(false);
    // Not run again: the trace and the certificate are the first process's.
    expect(readFileSync(join(env.AEH_DATA_DIR, keys.trace(run.run_id)))).toEqual(trace);
    expect(readFileSync(join(env.AEH_DATA_DIR, keys.certificate(run.run_id)))).toEqual(certificate);
    expect((await second.json('GET', `/api/v1/tasks/${task.task_id}`)).body).toEqual(task);
    expect((await second.json('GET', `/api/v1/runs/${run.run_id}`)).body).toEqual(run);
  });

  it('reads a task file an earlier version ended as it is, and ignores an end naming another task', async () => {
    const store = createStore('memory-test', createStorage());
    const queued: TaskRecord = { task_id: 'task_1', run_id: 'run_1', status: 'queued', progress: { done: 0, total: 2 }, created_at: '2026-12-08T01:00:00.000Z', started_at: null, finished_at: null, handoff: 'token' };
    const ended: TaskRecord = { ...queued, status: 'failed', progress: { done: 1, total: 2 }, started_at: '2026-12-08T01:00:01.000Z', finished_at: '2026-12-08T01:00:02.000Z', error: { code: 'internal', message: 'stopped' } };
    delete ended.handoff;
    // Main's end: the task file final, run.json without task_end.
    await store.setJson(keys.task('task_1'), ended);
    await store.setJson(keys.run('run_1'), { run_id: 'run_1', task_id: 'task_1', status: 'failed' });
    expect(await readTask(store, 'task_1')).toEqual(ended);
    // An end in run.json is laid over a file that is not final, giving the same record.
    const { task_id: _id, run_id: _run, created_at: _created, ...end } = ended;
    await store.setJson(keys.task('task_1'), queued);
    await store.setJson(keys.run('run_1'), { run_id: 'run_1', task_id: 'task_1', status: 'failed', task_end: end });
    expect(await readTask(store, 'task_1')).toEqual(ended);
    expect(await readRun(store, 'run_1')).toEqual({ run_id: 'run_1', task_id: 'task_1', status: 'failed' });
    // A run.json naming another task ends nothing of this one.
    await store.setJson(keys.run('run_1'), { run_id: 'run_1', task_id: 'task_2', status: 'failed', task_end: end });
    expect(await readTask(store, 'task_1')).toEqual(queued);
  });
});
