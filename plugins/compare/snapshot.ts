/**
 * What a comparison reads of one finished run: the record, its stored plan (the scenario as run), the per-task
 * outcomes of `scores.json`, the failures of `failures.json` and each task's final answer from the trace. Only
 * the original tasks are compared; mutated variants stay in their run's robustness figures.
 */
import { SIDECARS, type RunFailure, type RunRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import type { Store } from '../../core/storage.ts';
import { readTraceEvents } from '../../core/domain/trace-lines.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { agentKeyOf, type AgentKey } from './agent-key.ts';
import { readEvidenceJson } from '../../core/domain/packed-evidence.ts';
import { runContentHash } from '../../core/domain/scenario-identity.ts';

/**
 * A task's outcome: `pass` (scored, no failure), `fail`, `unmeasured` (no metric could decide), `error` (the
 * engine failed it: agent timeout or error) or `not_run` (the run ended before it).
 */
export type TaskOutcome = 'pass' | 'fail' | 'unmeasured' | 'error' | 'not_run';

export interface RunSnapshot {
  run: RunRecord;
  scenario?: Scenario;
  /** The scenario's content hash (core/domain/scenario-identity.ts): the record's, or its plan's for older runs. */
  contentHash?: string;
  agent: AgentKey;
  /** Task ids in the scenario's order (tasks the plan does not name follow in the order they were scored). */
  taskIds: string[];
  outcomes: Map<string, TaskOutcome>;
  /** Failures of the original tasks, by task id. */
  failures: Map<string, RunFailure[]>;
}

interface PerTaskEntry {
  task_id?: unknown;
  variant?: unknown;
  scores?: Record<string, number | null>;
  passed?: unknown;
}

const FINISHED = new Set(['succeeded', 'failed']);

/** The scenario in a stored plan (`{scenario, variants, …}`), or a bare scenario. */
export function scenarioOfPlan(stored: unknown): Scenario | undefined {
  const candidate = stored && typeof stored === 'object' && 'scenario' in stored ? (stored as { scenario: unknown }).scenario : stored;
  return candidate && typeof candidate === 'object' && Array.isArray((candidate as Scenario).tasks) ? (candidate as Scenario) : undefined;
}

/** Folds the attempts of one task (trials) into one outcome: any failed attempt fails it. */
function foldOutcome(previous: TaskOutcome | undefined, entry: PerTaskEntry): TaskOutcome {
  const scores = Object.values(entry.scores ?? {});
  const own: TaskOutcome = entry.passed === false ? 'fail' : scores.some((score) => typeof score === 'number') ? 'pass' : 'unmeasured';
  if (!previous) return own;
  if (previous === 'fail' || own === 'fail') return 'fail';
  return previous === 'pass' || own === 'pass' ? 'pass' : 'unmeasured';
}

function outcomesOf(perTask: unknown, failures: Map<string, RunFailure[]>, taskIds: string[]): Map<string, TaskOutcome> {
  const outcomes = new Map<string, TaskOutcome>();
  for (const entry of Array.isArray(perTask) ? (perTask as PerTaskEntry[]) : []) {
    if (typeof entry?.task_id !== 'string' || entry.variant) continue;
    outcomes.set(entry.task_id, foldOutcome(outcomes.get(entry.task_id), entry));
  }
  for (const taskId of taskIds) {
    if (outcomes.has(taskId)) continue;
    // Never scored: the engine failed the task (INFRA.*) or the run stopped before it.
    outcomes.set(taskId, failures.get(taskId)?.length ? 'error' : 'not_run');
  }
  return outcomes;
}

/** Reads a finished run for comparison; 404 when there is no such run, 409 while it is not finished. */
export async function loadSnapshot(store: Store, runId: string): Promise<RunSnapshot> {
  const run = await readRun(store, runId);
  if (!run) throw notFound(`run ${runId.slice(0, 128)}`);
  if (!FINISHED.has(run.status)) throw new Problem('conflict', { detail: `run ${runId} is ${run.status}: only finished runs (succeeded or failed) can be compared` });
  const [plan, scores, storedFailures] = await Promise.all([
    readEvidenceJson<unknown>(store, runId, SIDECARS.scenario),
    readEvidenceJson<{ per_task?: unknown }>(store, runId, SIDECARS.scores),
    readEvidenceJson<RunFailure[]>(store, runId, SIDECARS.failures),
  ]);
  const scenario = scenarioOfPlan(plan);
  const failures = new Map<string, RunFailure[]>();
  for (const failure of Array.isArray(storedFailures) ? storedFailures : run.failures ?? []) {
    if (failure.variant) continue;
    failures.set(failure.task_id, [...(failures.get(failure.task_id) ?? []), failure]);
  }
  const taskIds = [...new Set([...(scenario?.tasks ?? []).map((task) => task.id), ...failures.keys()])];
  const outcomes = outcomesOf(scores?.per_task, failures, taskIds);
  const known = new Set(taskIds);
  for (const taskId of outcomes.keys()) if (!known.has(taskId)) taskIds.push(taskId);
  return { run, scenario, contentHash: runContentHash(run, plan), agent: agentKeyOf(run, scenario?.agent), taskIds, outcomes, failures };
}

/**
 * Each original task's final answer: its last `agent_output` (the last turn of a conversation, the first
 * attempt of repeated trials), never a metric's probe. Only answer lines of the trace are parsed.
 */
export async function finalAnswers(store: Store, runId: string): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const event of await readTraceEvents(store, runId, { types: ['agent_output'] })) {
    if (event.variant || (event.trial ?? 0) > 0 || event.data.probe === true || typeof event.task_id !== 'string') continue;
    answers.set(event.task_id, String(event.data.output ?? ''));
  }
  return answers;
}
