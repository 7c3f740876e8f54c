/**
 * Declared checks imply their metrics (issue 24 item 2): a task that writes down `required_tools` is judged by
 * `tool_use`, `forbidden_tools` by `tool_safety`, `expected_outcome`, `world_checks`, `expected_actions` and turn checks by `state_match`, whether
 * or not its `metrics` lists them. A check nobody runs could never fail the run, which is the bug this closes.
 * (`expected` is left to the metrics a task lists: a custom metric may be the one that reads it.) A task that
 * requires actions is also read by `claim_check` (issue 32 item 3), which is not one of its declared checks.
 */
import type { MetricRef, Scenario, ScenarioTask } from './scenario.ts';

/** True when `expected` holds a check `task_success` can run (a rubric is a judgement, `llm_judge`'s). */
export function hasCheckableExpected(task: ScenarioTask): boolean {
  const expected = task.expected;
  return !!expected && (expected.equals !== undefined || expected.contains !== undefined || expected.regex !== undefined || expected.json_schema !== undefined);
}

/** True for a non-empty array. */
export const hasItems = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** The metric ids a task's own fields call for, in a stable order. */
export function impliedMetricIds(task: ScenarioTask): string[] {
  const ids: string[] = [];
  if (hasItems(task.required_tools)) ids.push('tool_use');
  if (hasItems(task.forbidden_tools)) ids.push('tool_safety');
  // `expected_actions: []` is a gold (nothing may change), so it is a check; an absent field is none.
  if (hasItems(task.expected_outcome) || hasItems(task.world_checks) || Array.isArray(task.expected_actions) || task.turns?.some((turn) => hasItems(turn.expected_outcome))) ids.push('state_match');
  return ids;
}

/**
 * The metrics a task's required actions call for beyond its declared checks: `claim_check`, when it names
 * required tools or expected actions (the metric itself keeps those that write). It judges what the answer says
 * about them, so it is no must-pass check: its failure gates by its severity (high), and an answer it cannot read
 * leaves it unmeasured, not the run in error.
 */
export function impliedGuardIds(task: ScenarioTask): string[] {
  return hasItems(task.required_tools) || hasItems(task.expected_actions) ? ['claim_check'] : [];
}

/**
 * The task with the metrics its declared checks and required actions imply appended (the same object when none is
 * missing). `loaded` says which metrics the service has: a guard it lacks is left out (a declared check never is).
 */
export function taskWithImpliedMetrics(task: ScenarioTask, loaded: (id: string) => boolean = () => true): ScenarioTask {
  const refs = task.metrics ?? [];
  const listed = new Set(refs.map((ref) => ref.id));
  const ids = impliedMetricIds(task);
  if (refs.length === 0 && hasCheckableExpected(task)) ids.push('task_success');
  const missing: MetricRef[] = [...ids, ...impliedGuardIds(task).filter(loaded)].filter((id) => !listed.has(id)).map((id) => ({ id }));
  return missing.length ? { ...task, metrics: [...refs, ...missing] } : task;
}

/** The scenario with every task's implied metrics (the same object when no task needs one). */
export function withImpliedMetrics(scenario: Scenario, loaded?: (id: string) => boolean): Scenario {
  const tasks = scenario.tasks.map((task) => taskWithImpliedMetrics(task, loaded));
  return tasks.some((task, index) => task !== scenario.tasks[index]) ? { ...scenario, tasks } : scenario;
}
