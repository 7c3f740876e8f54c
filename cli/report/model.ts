/** What the evaluate reports are built from: the run record and, per task, the metrics it was scored on. */
import type { RunRecord } from '../../core/runs.ts';

export interface TaskMetricResult {
  task_id: string;
  metric: string;
  /** `null` when the metric could not measure. */
  score: number | null;
  failures: RunRecord['failures'];
}

export interface ReportInput {
  run: RunRecord;
  scenarioTitle: string;
  results: TaskMetricResult[];
}

/** Joins the scenario's task × metric pairs with the run's failures and (when known) per-task scores. */
export function buildResults(run: RunRecord, tasks: Array<{ id: string; metrics: Array<{ id: string }> }>, scores?: Record<string, Record<string, number | null>>): TaskMetricResult[] {
  const results: TaskMetricResult[] = [];
  for (const task of tasks) {
    for (const metric of task.metrics) {
      const failures = run.failures.filter((failure) => failure.task_id === task.id && failure.metric === metric.id);
      const known = scores?.[task.id]?.[metric.id];
      results.push({ task_id: task.id, metric: metric.id, score: known === undefined ? (failures.length ? 0 : 1) : known, failures });
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
