/**
 * Records as the API shows them: tasks without their handoff token, runs with the live status of their task
 * while they are queued or running (the run record itself is only rewritten when the run ends).
 */
import { readTask, type RunRecord, type TaskRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import type { RunUsage } from '../../core/domain/usage.ts';
import type { Store } from '../../core/storage.ts';
import { notFound } from '../../core/problems.ts';
import { FINAL_STATUSES } from './engine.ts';
import { assertNotDeleted } from '../../core/domain/tombstone.ts';

/**
 * `GET /api/v1/tasks/:task_id`: the task record minus its handoff token (internal state, not a credential to
 * share), its stored submitter (permissions and token claims, which may be personal) and its quota bookkeeping.
 */
export function taskView(task: TaskRecord): Omit<TaskRecord, 'handoff' | 'submitter' | 'reserved_bytes'> {
  const { handoff: _handoff, submitter: _submitter, reserved_bytes: _reserved, ...view } = task;
  return view;
}

/** A run with its task's live status folded in. */
export async function liveRun(store: Store, run: RunRecord): Promise<RunRecord> {
  if (FINAL_STATUSES.has(run.status)) return run;
  const task = await readTask(store, run.task_id);
  if (!task) return run;
  return { ...run, status: task.status === 'running' || task.status === 'queued' ? task.status : run.status, started_at: task.started_at, tasks: { total: task.progress.total, done: task.progress.done } };
}

/** Reads a run for the API or throws 404. */
export async function runOr404(store: Store, runId: string): Promise<RunRecord> {
  const run = await readRun(store, runId);
  if (!run) {
    // Deleted by retention: say so (410 with when and why), not a bare 404.
    await assertNotDeleted(store, runId);
    throw notFound(`run ${runId}`);
  }
  return liveRun(store, run);
}

/** What a run list shows of a run's usage: calls and tokens, and its cost when a price table priced it. */
function listedUsage(usage: RunUsage) {
  const { calls, cached_calls, tokens, cost } = usage;
  return { calls, cached_calls, tokens, ...(cost ? { cost: { currency: cost.currency, total: cost.total, unpriced_calls: cost.unpriced_calls } } : {}) };
}

/** One item of `GET /api/v1/runs`. */
export function runSummary(run: RunRecord) {
  return {
    run_id: run.run_id,
    task_id: run.task_id,
    scenario_id: run.scenario_id,
    scenario_title: run.scenario_title,
    ...(run.scenario_hash ? { scenario_hash: run.scenario_hash } : {}),
    ...(run.scenario_origin ? { scenario_origin: run.scenario_origin } : {}),
    ...(run.agent ? { agent: run.agent } : {}),
    status: run.status,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    index: run.index,
    compliance: run.compliance,
    // Written when the run ends: absent while it runs.
    ...(run.usage ? { usage: listedUsage(run.usage) } : {}),
    url: `/api/v1/runs/${run.run_id}`,
  };
}
