/**
 * Runs and evaluation tasks as stored records, and the storage layout every plugin shares
 * (api-contract.md "Data on disk"): a run lives in `runs/<run_id>/` with its trace, sidecars and certificate.
 */
import type { AttackSummary } from './attack-summary.ts';
import type { StoredPrincipal } from '../auth-manager.ts';
import type { ComplianceStatus, DimensionScores } from './scoring.ts';
import type { Severity } from '../metric.ts';
import type { Store } from '../storage.ts';
import type { RunAgent } from './agent-target.ts';
import type { RunUsage } from './usage.ts';
import type { GateFailure, TaskVerdict, TrialsSummary } from './verdict.ts';
import type { VerdictGate, VerdictPolicy } from './verdict-policy.ts';
import type { PolicyLoosening } from './policy-strength.ts';

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
/** The statuses a run or task ends in: nothing changes them after. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set<RunStatus>(['succeeded', 'failed', 'cancelled']);

/** One failure of a run (`GET /api/v1/runs/:run_id` `failures[]`). */
export interface RunFailure {
  code: string;
  metric: string;
  task_id: string;
  /** Sequence number of the trace event the failure points to. */
  event_index: number | null;
  severity: Severity;
  message: string;
  evidence?: unknown;
  /** Mutated variant the failure was seen in, when not the original. */
  variant?: string;
  /** The attempt (0-based) it was seen in, when the scenario asks for repeated trials. */
  trial?: number;
  /** The conversation turn (1-based) whose answer it was seen in, for a metric that judges every answer. */
  turn?: number;
}

/** The run record (`GET /api/v1/runs/:run_id`). */
export interface RunRecord {
  run_id: string;
  task_id: string;
  scenario_id: string;
  scenario_title?: string;
  /**
   * SHA3-256 of the scenario's content as run, without its agent (core/domain/scenario-identity.ts): runs of one
   * id are runs of the same scenario only when this is the same. Absent in records written before it.
   */
  scenario_hash?: string;
  /** Where the scenario came from: `catalog`, `file` or `inline` (absent in records written before it). */
  scenario_origin?: 'catalog' | 'file' | 'inline';
  status: RunStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  dimensions: DimensionScores | null;
  index: number | null;
  /**
   * The verdict (core/domain/verdict.ts): the status, the index as `score`, the policy applied and the gate
   * that decided (`decided_by`; both absent in records written before verdict policies). With status `error`,
   * `reason` says why: the run could not complete, a must-pass check could not be measured, or nothing was.
   */
  compliance: { status: ComplianceStatus; score: number; policy_ref: string; reason?: string; policy?: VerdictPolicy; policy_relaxed?: PolicyLoosening[]; decided_by?: { gate: VerdictGate; reason: string } } | null;
  /** Which tier judged the results of each two-tier metric (`refusal`, `harmful_content`): the words or the classifier. */
  tiers?: Record<string, { deterministic: number; model: number }>;
  /**
   * The tasks by verdict status (`counts`), the tasks that did not pass every attempt (at most 100; `more_tasks`
   * says how many more; `scores.json` lists every task), and the failures that failed attempts.
   */
  verdict?: { counts?: { pass: number; fail: number; error: number; unmeasured?: number }; tasks: TaskVerdict[]; more_tasks?: number; gate_failures: GateFailure[] };
  failures: RunFailure[];
  /** The agent evaluated: its registry name when given by name, its adapter and the hash of its configuration. */
  agent?: RunAgent;
  trace_file: string;
  certificate_url: string;
  verify_url: string;
  /**
   * Present when the run ended in `error`: the problem code and a message. A run that completed but measured
   * nothing (every metric unmeasured) is `succeeded` with `error.code` `nothing_measured` and the reason.
   */
  error?: { code: string; message: string };
  /** Per-metric spread across the original and its mutated variants (runs with `mutations`). */
  robustness?: RobustnessStats | null;
  /**
   * With attacks (issue 35): utility, utility under attack and the targeted attack success rate, per attack and
   * pooled (core/domain/attack-summary.ts).
   */
  attacks?: AttackSummary;
  /** Scenario tasks in the run (original and variants) and how many were done. */
  tasks?: { total: number; done: number };
  /**
   * With repeated trials (`scenario.trials` = k): the share of tasks that passed in at least one attempt
   * (pass@k), in every attempt (pass^k), and pass^1…pass^k (τ-bench's estimator); an attempt passes when no
   * gate of the verdict policy failed it. The dimensions score each metric by its worst attempt.
   */
  trials?: TrialsSummary;
  /**
   * Agent calls made and answers taken from the response cache, the tokens agents reported, latency, and with a
   * price table the cost (core/domain/usage.ts). Written when the run ends.
   */
  usage?: RunUsage;
}

/** Per-metric `{mean, min, stddev}` of scores across the original and its variants (integration.md item 3). */
export interface RobustnessStats {
  variants: number;
  metrics: Record<string, { mean: number; min: number; stddev: number; count: number }>;
}

/** An asynchronous evaluation task (`GET /api/v1/tasks/:task_id`). */
export interface TaskRecord {
  task_id: string;
  run_id: string;
  status: RunStatus;
  progress: { done: number; total: number };
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error?: { code: string; message: string };
  /** The latest handoff token: the signed state any instance resumes from. */
  handoff?: string;
  /** The id of the principal that submitted it (a schedule's creator for a scheduled firing). */
  submitted_by?: string;
  /**
   * The submitting principal as stored (`StoredPrincipal`: id, provider, permissions, claims): asked again when
   * the task starts or resumes, so a revoked submitter's queued run never starts. Never shown by the API.
   */
  submitter?: StoredPrincipal;
  /** The environment variables (`AEH_AGENT_KEY_ENVS`) the run's agent may send: names only, never values. */
  agent_envs?: string[];
  /**
   * Bytes its submission counted against the submitter's stored-bytes quota at once (its scenario and initial
   * world, plugins/evaluation/submission/owners.ts), given back when the run is counted for what it stored.
   */
  reserved_bytes?: number;
}

/** Digests of evidence as the engine ran it (the `run.finished` hook's `digests`, issue 36). */
export interface EvidenceDigests {
  /** SHA3-256 (hex) of a sidecar's bytes as judged, by file name. */
  files?: Readonly<Record<string, string>>;
  /** SHA3-256 (hex) of the trace's first `bytes` bytes: every byte the run appended. */
  trace?: { sha3: string; bytes: number };
}

/** The trace file's basename (`trace_file` in the run and the certificate). */
export const TRACE_FILE = 'trace.jsonl';

/** Sidecar files written beside the trace and covered by the certificate's `evidence_ledger`. */
export const SIDECARS = {
  scenario: 'scenario.json',
  scores: 'scores.json',
  failures: 'failures.json',
  summary: 'summary.json',
} as const;

/**
 * Sidecars only some runs have, covered by the evidence ledger when present: `world.json` holds the initial
 * and final world states of a run whose scenario enables shims.
 */
export const OPTIONAL_SIDECARS = {
  world: 'world.json',
} as const;

/** Storage keys of the shared layout. */
export const keys = {
  runDir: (runId: string) => `runs/${runId}`,
  run: (runId: string) => `runs/${runId}/run.json`,
  trace: (runId: string) => `runs/${runId}/${TRACE_FILE}`,
  sidecar: (runId: string, file: string) => `runs/${runId}/${file}`,
  certificate: (runId: string) => `runs/${runId}/certificate.json`,
  task: (taskId: string) => `tasks/${taskId}.json`,
  /**
   * Marker of a task still queued or running on a store shared by instances (on `fs` and `memory` a line of a
   * journal instead, plugins/evaluation/submission/active-tasks.ts), so a starting instance finds what to resume.
   */
  activeTask: (taskId: string) => `tasks-active/${taskId}`,
  /** Marker asking whichever instance runs the task to cancel it. */
  cancelRequest: (taskId: string) => `tasks-cancel/${taskId}`,
  /** Counter of runs ever created; also the sequence number of the run index. */
  runCounter: 'stats/runs',
  /** One page of the run index (`<seq> <run_id>` lines), for newest-first listing without a scan. */
  runIndexPage: (page: number) => `index/runs/${String(page).padStart(8, '0')}.txt`,
};

const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** True for an id that is safe to use as a storage path segment. */
export function isValidRunId(runId: string): boolean {
  return RUN_ID.test(runId);
}

/**
 * How a task ended, as its run's final `run.json` keeps it (`task_end`, never shown by the API): since issue 36's
 * eighth sitting one atomic write ends a run, the run record with this, and the task's file keeps the state its
 * last checkpoint wrote. `readTask` lays this over it, giving exactly the record the end used to write.
 */
export interface TaskEnding {
  status: RunStatus;
  progress: { done: number; total: number };
  started_at: string | null;
  finished_at: string | null;
  error?: { code: string; message: string };
}

/** `run.json` as stored: the run record and, for runs ended since issue 36's eighth sitting, its task's end. */
export type StoredRunRecord = RunRecord & { task_end?: TaskEnding };

/** What of a task's record its end sets (finish.ts): the ending `run.json` keeps, the task's file does not. */
export function taskEnding(task: TaskRecord): TaskEnding {
  return { status: task.status, progress: task.progress, started_at: task.started_at, finished_at: task.finished_at, ...(task.error ? { error: task.error } : {}) };
}

/** The run record without what only storage keeps (`task_end`). */
export function runRecordOf(stored: StoredRunRecord): RunRecord {
  const { task_end: _ending, ...record } = stored;
  return record;
}

/**
 * Reads a task record, or `null`. A task whose file is not final may have ended in its run's `run.json`
 * (`task_end`, written by the end in one write with the run record): then the record as the end set it, without
 * its handoff token, as task files written by earlier versions hold it. A final task file is read as it is.
 */
export async function readTask(store: Store, taskId: string): Promise<TaskRecord | null> {
  if (!isValidRunId(taskId)) return null;
  const task = await store.getJson<TaskRecord>(keys.task(taskId));
  if (!task || FINAL_STATUSES.has(task.status) || !isValidRunId(task.run_id)) return task;
  const run = await store.getJson<StoredRunRecord>(keys.run(task.run_id));
  if (run?.task_id !== taskId || !run.task_end) return task;
  const { handoff: _handoff, error: _error, ...kept } = task;
  return { ...kept, ...run.task_end };
}
