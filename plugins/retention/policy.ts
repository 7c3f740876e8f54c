/**
 * Which finished runs retention deletes: those finished more than `max_age_days` ago, and beyond the
 * `keep_runs` newest of each submitter, scenario (its id and content hash) and agent. Runs still queued or running
 * are never selected, whatever their age: a run is judged only once it has its final status.
 *
 * `keep_runs` counts per submitting principal and per scenario content (issue 33 item 1): an OPERATOR who
 * submitted two trivial runs under a SUPERVISOR's scenario id with the same agent made the next collection delete
 * the supervisor's certified run. Runs held by a pinned baseline or a suite certificate (core/domain/run-holds.ts)
 * are never counted out; `max_age_days` is the operator's own clock and applies to every run.
 */
import { FINAL_STATUSES, type RunRecord } from '../../core/domain/runs.ts';

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

const DAY_MS = 86_400_000;

/** The key `keep_runs` counts over: the registered agent's name, else its adapter and configuration hash. */
export function agentKeyOf(run: RunRecord): string {
  if (run.agent?.name) return run.agent.name;
  if (run.agent) return `${run.agent.adapter}:${run.agent.config_hash ?? ''}`;
  return 'unknown';
}

const finishedMs = (run: RunRecord) => Date.parse(run.finished_at ?? run.created_at);

/** What a collection knows of a run besides its record: who submitted it, and whether something holds it. */
export interface RunFacts {
  /** The submitting principal's id (the task record's `submitted_by`), when known. */
  owner?: string;
  /** A pinned baseline or a suite certificate relies on it. */
  held?: boolean;
}

/** The group `keep_runs` counts a run in: its submitter, scenario id, content hash (when recorded) and agent. */
function keepGroupOf(run: RunRecord, facts: RunFacts): string {
  return [facts.owner ?? '', run.scenario_id, run.scenario_hash ?? '', agentKeyOf(run)].join('\u0000');
}

/** The runs to delete under `rules` at `now` (ms), oldest rule first: age, then count. */
export function selectRuns(runs: readonly RunRecord[], rules: RetentionRules, now: number, factsOf: (run: RunRecord) => RunFacts = () => ({})): Selected[] {
  const finished = runs.filter((run) => FINAL_STATUSES.has(run.status) && !Number.isNaN(finishedMs(run)));
  const selected = new Map<string, Selected>();
  if (rules.max_age_days !== undefined) {
    const before = now - rules.max_age_days * DAY_MS;
    for (const run of finished) if (finishedMs(run) < before) selected.set(run.run_id, { run, agent: agentKeyOf(run), rule: { max_age_days: rules.max_age_days } });
  }
  if (rules.keep_runs !== undefined) {
    const groups = new Map<string, RunRecord[]>();
    for (const run of finished) {
      const facts = factsOf(run);
      if (facts.held) continue;
      const group = keepGroupOf(run, facts);
      const members = groups.get(group);
      if (members) members.push(run);
      else groups.set(group, [run]);
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
