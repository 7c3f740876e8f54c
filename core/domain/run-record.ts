/**
 * A run's record (`GET /api/v1/runs/:run_id`) as stored (`runs/<run_id>/run.json`) and, for a run that has not
 * ended, as rebuilt. Since issue 36's seventh sitting a submission writes no `run.json` (an atomic write, a new
 * inode and an fsync per run, of a record every field of which the plan and the task record already hold): the
 * run's first `run.json` is its final one. Until then `readRun` rebuilds the record the submission used to
 * write, exactly, from the plan (`scenario.json`, which names the task) and the task record, both written before
 * the submission's 202. Runs stored by earlier versions have a `run.json` from their submission, read as before.
 */
import type { Store } from '../storage.ts';
import type { RunAgent } from './agent-target.ts';
import type { ScenarioIdentity } from './scenario-identity.ts';
import { readEvidenceJson } from './packed-evidence.ts';
import { isValidRunId, keys, readTask, runRecordOf, SIDECARS, type RunRecord, type StoredRunRecord, type TaskRecord } from './runs.ts';

/** The run record every stage of a run starts from: queued, nothing measured yet. */
export function baseRunRecord(task: TaskRecord, scenario: { id: string; title: string }, total: number, agent?: RunAgent, identity?: Partial<ScenarioIdentity>): RunRecord {
  return {
    run_id: task.run_id,
    task_id: task.task_id,
    scenario_id: scenario.id,
    scenario_title: scenario.title,
    ...(identity?.content_hash ? { scenario_hash: identity.content_hash } : {}),
    ...(identity?.origin ? { scenario_origin: identity.origin } : {}),
    ...(agent ? { agent } : {}),
    status: 'queued',
    created_at: task.created_at,
    started_at: null,
    finished_at: null,
    dimensions: null,
    index: null,
    compliance: null,
    failures: [],
    trace_file: 'trace.jsonl',
    certificate_url: `/v1/certificates/${task.run_id}`,
    verify_url: `/api/v1/verify/${task.run_id}`,
    robustness: null,
    tasks: { total, done: 0 },
  };
}

/** What of a run's plan (plugins/evaluation/submission/plan.ts) its record is built from. */
interface PlanHead {
  run_id: string;
  task_id: string;
  scenario: { id: string; title: string };
  agent?: RunAgent;
  scenario_hash?: string;
  origin?: ScenarioIdentity['origin'];
}

/**
 * The record of a run not ended, as its submission wrote it: from its plan and task record; `null` when either
 * is missing or they do not name each other (a submission cut short, a run being deleted).
 */
export async function pendingRunRecord(store: Store, runId: string): Promise<RunRecord | null> {
  const plan = await readEvidenceJson<PlanHead>(store, runId, SIDECARS.scenario);
  if (!plan || plan.run_id !== runId || typeof plan.task_id !== 'string') return null;
  const task = await readTask(store, plan.task_id);
  if (!task || task.run_id !== runId) return null;
  return baseRunRecord(task, plan.scenario, task.progress.total, plan.agent, { content_hash: plan.scenario_hash, origin: plan.origin });
}

/**
 * Reads a run record, or `null` (also for ids that could not be a run); a run not ended has it rebuilt. What only
 * storage keeps (`task_end`, its task's end: runs.ts `readTask`) is left out.
 */
export async function readRun(store: Store, runId: string): Promise<RunRecord | null> {
  if (!isValidRunId(runId)) return null;
  const stored = await store.getJson<StoredRunRecord>(keys.run(runId));
  return stored ? runRecordOf(stored) : pendingRunRecord(store, runId);
}
