/**
 * Which finished runs retention deletes: those finished more than `max_age_days` ago, and beyond the
 * `keep_runs` newest of each scenario and agent. Runs still queued or running are never selected, whatever
 * their age: a run is judged only once it has its final status.
 */
import type { RunRecord } from '../../core/domain/runs.ts';

/** The retention rules; absent members do not apply. */
export interface RetentionRules {
  max_age_days?: number;
  keep_runs?: number;
}

/** A run retention selected, and the rule that selected it. */
export interface Selected {
  run: RunRecord;
  agent: string;
  rule: RetentionRules;
}

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);
const DAY_MS = 86_400_000;

/** The key `keep_runs` counts over: the registered agent's name, else its adapter and configuration hash. */
export function agentKeyOf(run: RunRecord): string {
  if (run.agent?.name) return run.agent.name;
  if (run.agent) return `${run.agent.adapter}:${run.agent.config_hash ?? ''}`;
  return 'unknown';
}

const finishedMs = (run: RunRecord) => Date.parse(run.finished_at ?? run.created_at);

/** The runs to delete under `rules` at `now` (ms), oldest rule first: age, then count. */
export function selectRuns(runs: readonly RunRecord[], rules: RetentionRules, now: number): Selected[] {
  const finished = runs.filter((run) => FINAL.has(run.status) && !Number.isNaN(finishedMs(run)));
  const selected = new Map<string, Selected>();
  if (rules.max_age_days !== undefined) {
    const before = now - rules.max_age_days * DAY_MS;
    for (const run of finished) if (finishedMs(run) < before) selected.set(run.run_id, { run, agent: agentKeyOf(run), rule: { max_age_days: rules.max_age_days } });
  }
  if (rules.keep_runs !== undefined) {
    const groups = new Map<string, RunRecord[]>();
    for (const run of finished) {
      const group = `${run.scenario_id}\u0000${agentKeyOf(run)}`;
      groups.set(group, [...(groups.get(group) ?? []), run]);
    }
    for (const group of groups.values()) {
      // Newest first; equal times by id, so two collectors agree on which runs are kept.
      group.sort((a, b) => finishedMs(b) - finishedMs(a) || (a.run_id < b.run_id ? 1 : -1));
      for (const run of group.slice(rules.keep_runs)) {
        if (!selected.has(run.run_id)) selected.set(run.run_id, { run, agent: agentKeyOf(run), rule: { keep_runs: rules.keep_runs } });
      }
    }
  }
  return [...selected.values()];
}
