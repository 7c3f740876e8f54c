/**
 * The regression gate: what in a comparison counts as a regression beyond a threshold. The index or a
 * dimension dropping by more than `max_regression` (absolute, on the 0–1 scale), a dimension measured before
 * and not now, the head run failing to complete, and any failure a task did not have in the base run.
 */
import type { RunDiff } from './diff.ts';
import type { RunSnapshot } from './snapshot.ts';

export type RegressionKind = 'index' | 'dimension' | 'unmeasured' | 'run_error' | 'new_failure';

export interface Regression {
  kind: RegressionKind;
  /** The dimension, or the task id and metric of a new failure. */
  subject: string;
  message: string;
  /** The taxonomy code of a new failure. */
  code?: string;
  delta?: number;
}

/** Scores are rounded to 6 decimals; a drop of exactly the threshold is within it. */
const EPSILON = 1e-9;

/** The regressions of `head` against `base` beyond `maxRegression` (0 counts every drop). */
export function regressionsOf(base: RunSnapshot, head: RunSnapshot, diff: RunDiff, maxRegression: number): Regression[] {
  const regressions: Regression[] = [];
  if (head.run.status === 'failed' && base.run.status !== 'failed') {
    regressions.push({ kind: 'run_error', subject: head.run.run_id, message: `the run could not complete (${head.run.error?.code ?? 'error'}); the base run did` });
  }
  const dropped = (value: number | null) => value !== null && -value > maxRegression + EPSILON;
  if (dropped(diff.index.delta)) {
    regressions.push({ kind: 'index', subject: 'index', delta: diff.index.delta!, message: `index ${fixed(diff.index.base)} → ${fixed(diff.index.head)} (${diff.index.delta!.toFixed(3)}, more than ${maxRegression} lower)` });
  }
  for (const [name, score] of Object.entries(diff.dimensions)) {
    if (dropped(score.delta)) {
      regressions.push({ kind: 'dimension', subject: name, delta: score.delta!, message: `${name} ${fixed(score.base)} → ${fixed(score.head)} (${score.delta!.toFixed(3)}, more than ${maxRegression} lower)` });
    } else if (score.base !== null && score.head === null) {
      regressions.push({ kind: 'unmeasured', subject: name, message: `${name} was ${fixed(score.base)} and is no longer measured` });
    }
  }
  for (const task of diff.tasks) {
    for (const group of task.failures.new) {
      regressions.push({ kind: 'new_failure', subject: `${task.task_id}/${group.metric}`, code: group.code, message: `${task.task_id}/${group.metric}: new ${group.code}${group.message ? ` — ${group.message}` : ''}` });
    }
  }
  return regressions;
}

function fixed(value: number | null): string {
  return value === null ? '—' : value.toFixed(3);
}
