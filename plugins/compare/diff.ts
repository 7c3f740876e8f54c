/**
 * The comparison of two finished runs: index and dimension deltas, each task's outcome before and after, its
 * failures new, fixed and unchanged (by metric and taxonomy code), and the answers that changed, side by side.
 * Pure: the snapshots, answers and the redaction come in; nothing is read here.
 */
import { DIMENSIONS, type Dimension } from '../../core/domain/scenario.ts';
import type { RunFailure } from '../../core/domain/runs.ts';
import type { RunSnapshot, TaskOutcome } from './snapshot.ts';

/** How a task's outcome moved from base to head. */
export type TaskChange = 'regressed' | 'improved' | 'same' | 'added' | 'removed';

export interface Delta {
  base: number | null;
  head: number | null;
  /** head − base, rounded to 6 decimals; `null` when either side is unmeasured. */
  delta: number | null;
}

/** Failures of one metric and code in one task; `count` of them (a metric may report one code several times). */
export interface FailureGroup {
  code: string;
  metric: string;
  severity: string;
  count: number;
  /** The first failure's message (redacted), from the run it is seen in. */
  message?: string;
}

export interface TaskComparison {
  task_id: string;
  before: TaskOutcome | null;
  after: TaskOutcome | null;
  change: TaskChange;
  failures: { new: FailureGroup[]; fixed: FailureGroup[]; unchanged: FailureGroup[] };
  answer_changed: boolean;
  /** Both final answers, redacted, for the first `answers` tasks whose answer changed. */
  answer?: { base: string | null; head: string | null };
}

export interface ComparisonCounts {
  tasks: number;
  regressed: number;
  improved: number;
  same: number;
  added: number;
  removed: number;
  failures: { new: number; fixed: number; unchanged: number };
  answers_changed: number;
  answers_shown: number;
}

export interface DiffOptions {
  baseAnswers: ReadonlyMap<string, string>;
  headAnswers: ReadonlyMap<string, string>;
  /** How many changed answers to show side by side (the others are counted). */
  answers: number;
  /** Masks an answer of one side against that run's scenario (the redactor), before it is cut. */
  redact(text: string, side: 'base' | 'head'): string;
  /** The longest answer shown, in characters (default 4,000). */
  maxAnswerChars?: number;
}

const RANK: Record<TaskOutcome, number> = { pass: 2, unmeasured: 1, fail: 0, error: 0, not_run: 0 };

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** The delta of two scores. */
export function delta(base: number | null | undefined, head: number | null | undefined): Delta {
  const b = typeof base === 'number' ? base : null;
  const h = typeof head === 'number' ? head : null;
  return { base: b, head: h, delta: b === null || h === null ? null : round(h - b) };
}

function changeOf(before: TaskOutcome | null, after: TaskOutcome | null): TaskChange {
  if (before === null) return 'added';
  if (after === null) return 'removed';
  const moved = RANK[after] - RANK[before];
  return moved < 0 ? 'regressed' : moved > 0 ? 'improved' : 'same';
}

function groups(failures: readonly RunFailure[] | undefined): Map<string, FailureGroup> {
  const grouped = new Map<string, FailureGroup>();
  for (const failure of failures ?? []) {
    const key = `${failure.metric}\u0000${failure.code}`;
    const group = grouped.get(key);
    if (group) group.count += 1;
    else grouped.set(key, { code: failure.code, metric: failure.metric, severity: failure.severity, count: 1, message: failure.message });
  }
  return grouped;
}

function failureDiff(base: readonly RunFailure[] | undefined, head: readonly RunFailure[] | undefined, redact: DiffOptions['redact']): TaskComparison['failures'] {
  const before = groups(base);
  const after = groups(head);
  const shown = (group: FailureGroup, side: 'base' | 'head'): FailureGroup => ({ ...group, message: redact(String(group.message ?? ''), side).slice(0, 500) });
  const bare = ({ message: _message, ...group }: FailureGroup): FailureGroup => group;
  return {
    new: [...after].filter(([key]) => !before.has(key)).map(([, group]) => shown(group, 'head')),
    fixed: [...before].filter(([key]) => !after.has(key)).map(([, group]) => shown(group, 'base')),
    unchanged: [...after].filter(([key]) => before.has(key)).map(([, group]) => bare(group)),
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

const CHANGE_ORDER: Record<TaskChange, number> = { regressed: 0, added: 1, removed: 1, improved: 2, same: 3 };

/** Compares two snapshots task by task. */
export function diffRuns(base: RunSnapshot, head: RunSnapshot, options: DiffOptions) {
  const taskIds = [...new Set([...base.taskIds, ...head.taskIds])];
  const tasks: TaskComparison[] = taskIds.map((taskId) => {
    const before = base.outcomes.get(taskId) ?? null;
    const after = head.outcomes.get(taskId) ?? null;
    const baseAnswer = options.baseAnswers.get(taskId);
    const headAnswer = options.headAnswers.get(taskId);
    return {
      task_id: taskId,
      before,
      after,
      change: changeOf(before, after),
      failures: failureDiff(base.failures.get(taskId), head.failures.get(taskId), options.redact),
      answer_changed: baseAnswer !== headAnswer,
    };
  });
  // The answers shown side by side: regressions first, then in the scenario's order.
  const changed = tasks.filter((task) => task.answer_changed).sort((a, b) => CHANGE_ORDER[a.change] - CHANGE_ORDER[b.change]);
  const max = options.maxAnswerChars ?? 4000;
  const shownAnswer = (text: string | undefined, side: 'base' | 'head') => (text === undefined ? null : clip(options.redact(text, side), max));
  for (const task of changed.slice(0, options.answers)) {
    task.answer = { base: shownAnswer(options.baseAnswers.get(task.task_id), 'base'), head: shownAnswer(options.headAnswers.get(task.task_id), 'head') };
  }
  const count = (change: TaskChange) => tasks.filter((task) => task.change === change).length;
  const sum = (kind: 'new' | 'fixed' | 'unchanged') => tasks.reduce((total, task) => total + task.failures[kind].reduce((n, group) => n + group.count, 0), 0);
  const counts: ComparisonCounts = {
    tasks: tasks.length,
    regressed: count('regressed'), improved: count('improved'), same: count('same'), added: count('added'), removed: count('removed'),
    failures: { new: sum('new'), fixed: sum('fixed'), unchanged: sum('unchanged') },
    answers_changed: changed.length,
    answers_shown: Math.min(changed.length, options.answers),
  };
  const dimensions = Object.fromEntries(DIMENSIONS.map((name) => [name, delta(base.run.dimensions?.[name], head.run.dimensions?.[name])])) as Record<Dimension, Delta>;
  return { index: delta(base.run.index, head.run.index), dimensions, counts, tasks };
}

export type RunDiff = ReturnType<typeof diffRuns>;
