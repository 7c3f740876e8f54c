/** What the evaluate reports are built from: the run record and, per task, the metrics it was scored on. */
import type { RunRecord } from '../../core/domain/runs.ts';
import type { Scenario } from '../../core/domain/scenario.ts';

export interface TaskMetricResult {
  task_id: string;
  metric: string;
  /** `null` when the metric could not measure. */
  score: number | null;
  failures: RunRecord['failures'];
}

/**
 * Where the reports link to: the run's addresses from `GET /api/v1/runs/:id/links`, absolute when the service
 * has a public URL (`AEH_PUBLIC_URL`) or the CLI used `--url`.
 */
export interface ReportLinks {
  certificate: string;
  verify: string;
  report?: string;
  console?: string;
}

export interface ReportInput {
  run: RunRecord;
  scenarioTitle: string;
  results: TaskMetricResult[];
  /** The scenario run, when known: its canaries are masked wherever the report repeats the run (redact.ts). */
  scenario?: Scenario;
  /** The run's links; without them the reports use the run record's paths. */
  links?: ReportLinks;
}

/** Per-task metric scores of the original tasks, from the run's `scores.json` sidecar (`per_task`). */
export function taskScoresFrom(scoresSidecar: unknown): Record<string, Record<string, number | null>> | undefined {
  const perTask = (scoresSidecar as { per_task?: unknown } | null)?.per_task;
  if (!Array.isArray(perTask)) return undefined;
  const scores: Record<string, Record<string, number | null>> = {};
  for (const entry of perTask as Array<{ task_id?: unknown; variant?: unknown; scores?: unknown }>) {
    // Mutated variants repeat the task ids; the report has one row per original task and metric.
    if (typeof entry?.task_id !== 'string' || entry.variant || !entry.scores || typeof entry.scores !== 'object') continue;
    scores[entry.task_id] = entry.scores as Record<string, number | null>;
  }
  return scores;
}

/** Joins the scenario's task × metric pairs with the run's failures and (when known) per-task scores. */
export function buildResults(run: RunRecord, tasks: Array<{ id: string; metrics: Array<{ id: string }> }>, scores?: Record<string, Record<string, number | null>>): TaskMetricResult[] {
  const results: TaskMetricResult[] = [];
  for (const task of tasks) {
    for (const metric of task.metrics) {
      const failures = run.failures.filter((failure) => failure.task_id === task.id && failure.metric === metric.id);
      const known = scores?.[task.id]?.[metric.id];
      // A task the run never scored (the agent failed first) was not measured. Without the scores sidecar at all,
      // a metric with no failure is reported passed: the run record has no per-task scores.
      const missing = failures.length ? 0 : scores ? null : 1;
      results.push({ task_id: task.id, metric: metric.id, score: known === undefined ? missing : known, failures });
    }
  }
  // Failures the engine raised outside any metric (agent errors, timeouts) get their own rows.
  for (const failure of run.failures) {
    if (!results.some((result) => result.task_id === failure.task_id && result.metric === failure.metric)) {
      results.push({ task_id: failure.task_id, metric: failure.metric || 'engine', score: 0, failures: [failure] });
    }
  }
  return results;
}

