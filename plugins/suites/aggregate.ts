/**
 * A suite as the API shows it: each run's live status from its run record, and per agent the mean index, mean
 * dimension scores, pass rate and failures by code over the runs that finished with scores.
 */
import { type RunRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import { DIMENSIONS, type Dimension } from '../../core/domain/scenario.ts';
import type { DimensionScores } from '../../core/domain/scoring.ts';
import type { SuiteAgentAggregate, SuiteEntryStatus, SuiteRun, SuiteView } from '../../core/domain/suites.ts';
import type { Store } from '../../core/storage.ts';
import type { SuiteRecord } from './store.ts';
import { sumRunUsage } from '../../core/domain/usage.ts';
import { readTombstone } from '../../core/domain/tombstone.ts';

const ENDED = new Set<SuiteEntryStatus>(['succeeded', 'failed', 'cancelled', 'refused', 'deleted']);

const mean = (values: number[]): number | null => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null);
const round = (value: number | null): number | null => (value === null ? null : Math.round(value * 10_000) / 10_000);

/** Reads every run of the suite (a few at a time), keyed by run id. */
export async function readSuiteRuns(store: Store, record: SuiteRecord): Promise<Map<string, RunRecord>> {
  const ids = record.entries.map((entry) => entry.run_id).filter((id): id is string => id !== null);
  const runs = new Map<string, RunRecord>();
  for (let start = 0; start < ids.length; start += 64) {
    const batch = await Promise.all(ids.slice(start, start + 64).map((id) => readRun(store, id)));
    for (const run of batch) if (run) runs.set(run.run_id, run);
  }
  return runs;
}

/** The suite's runs without a record that retention deleted (a tombstone), not ones still being stored. */
export async function deletedSuiteRuns(store: Store, record: SuiteRecord, runs: Map<string, RunRecord>): Promise<Set<string>> {
  const missing = record.entries.map((entry) => entry.run_id).filter((id): id is string => id !== null && !runs.has(id));
  const found = await Promise.all(missing.map(async (id) => ((await readTombstone(store, id)) ? id : null)));
  return new Set(found.filter((id): id is string => id !== null));
}

function runOf(entry: SuiteRecord['entries'][number], runs: Map<string, RunRecord>, deleted: ReadonlySet<string>): SuiteRun {
  const run = entry.run_id ? runs.get(entry.run_id) : undefined;
  const status: SuiteEntryStatus = entry.error ? 'refused' : run ? run.status : entry.run_id && deleted.has(entry.run_id) ? 'deleted' : entry.run_id ? 'queued' : 'pending';
  return {
    scenario_id: entry.scenario_id,
    agent: entry.agent,
    status,
    run_id: entry.run_id,
    task_id: entry.task_id,
    index: run?.index ?? null,
    compliance: run?.compliance?.status ?? null,
    ...(entry.error ? { error: entry.error } : {}),
  };
}

/** A run that ended with scores: what the aggregates count. */
function scored(run: RunRecord | undefined): run is RunRecord {
  return !!run && (run.status === 'succeeded' || run.status === 'failed') && run.index !== null;
}

function aggregateAgent(record: SuiteRecord, agentKey: string, suiteRuns: SuiteRun[], runs: Map<string, RunRecord>): SuiteAgentAggregate {
  const own = suiteRuns.filter((run) => run.agent === agentKey);
  const byStatus: Partial<Record<SuiteEntryStatus, number>> = {};
  for (const run of own) byStatus[run.status] = (byStatus[run.status] ?? 0) + 1;
  const finished = own.map((run) => (run.run_id ? runs.get(run.run_id) : undefined)).filter(scored);
  let dimensions: DimensionScores | null = null;
  if (finished.length) {
    dimensions = Object.fromEntries(DIMENSIONS.map((dimension: Dimension) => [dimension, round(mean(finished.map((run) => run.dimensions?.[dimension]).filter((score): score is number => typeof score === 'number')))])) as DimensionScores;
  }
  const failuresByCode: Record<string, number> = {};
  for (const run of finished) for (const failure of run.failures ?? []) failuresByCode[failure.code] = (failuresByCode[failure.code] ?? 0) + 1;
  return {
    agent: record.agents.find((agent) => agent.key === agentKey)!,
    runs: { total: own.length, finished: own.filter((run) => ENDED.has(run.status)).length, by_status: byStatus },
    index: round(mean(finished.map((run) => run.index!))),
    dimensions,
    pass_rate: finished.length ? round(finished.filter((run) => run.compliance?.status === 'pass').length / finished.length) : null,
    failures_by_code: Object.fromEntries(Object.entries(failuresByCode).sort(([a], [b]) => (a < b ? -1 : 1))),
    // Every run that ended with totals, scored or not: a failed run's calls were made (and paid) all the same.
    usage: sumRunUsage(own.map((run) => (run.run_id ? runs.get(run.run_id)?.usage : undefined)).filter((usage) => usage !== undefined)),
  };
}

/** The suite's view without its certificate state (added by the caller). */
export function suiteView(record: SuiteRecord, runs: Map<string, RunRecord>, deleted: ReadonlySet<string> = new Set()): Omit<SuiteView, 'certificate'> {
  const suiteRuns = record.entries.map((entry) => runOf(entry, runs, deleted));
  const ended = suiteRuns.every((run) => ENDED.has(run.status));
  return {
    suite_id: record.suite_id,
    name: record.name,
    status: !record.launched ? 'launching' : ended ? 'finished' : 'running',
    created_at: record.created_at,
    created_by: record.created_by,
    query: record.query,
    scenario_ids: record.scenario_ids,
    agents: record.agents.map((agent) => aggregateAgent(record, agent.key, suiteRuns, runs)),
    runs: suiteRuns,
    ...(record.cache ? { cache: true } : {}),
    ...(record.verdict ? { verdict: record.verdict } : {}),
  };
}
