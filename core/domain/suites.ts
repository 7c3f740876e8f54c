/**
 * Suites as other plugins use them: the `suites` service slot (`services.find('suites')`), which the `suites`
 * plugin provides (plugins/suites). A suite evaluates a set of scenarios against one or more agents; this file
 * holds only the shapes a consumer (the compare plugin, reports) reads.
 */
import type { VerdictPolicyInput } from './verdict-policy.ts';
import type { CatalogQuery } from './catalog.ts';
import type { DimensionScores } from './scoring.ts';
import type { AgentSpec } from './scenario.ts';
import type { RunStatus } from './runs.ts';
import type { RunUsage } from './usage.ts';

/** One agent of a suite: a registry name, an inline spec, or each scenario's own agent. */
export interface SuiteAgent {
  /** How the suite's aggregates are keyed: `name:<name>`, `spec:<hash>` or `scenario`. */
  key: string;
  /** The registry name, when the agent was given by name. */
  name?: string;
  /** The inline spec, when the agent was given as one. */
  spec?: AgentSpec;
}

/** Where one (scenario, agent) pair of a suite stands. `refused`: the evaluation API refused to launch it. */
/** `deleted`: the run ended, and retention deleted its evidence since (its certificate is kept). */
export type SuiteEntryStatus = 'pending' | 'refused' | 'deleted' | RunStatus;

/** One run of a suite. */
export interface SuiteRun {
  scenario_id: string;
  agent: string;
  status: SuiteEntryStatus;
  run_id: string | null;
  task_id: string | null;
  index: number | null;
  compliance: string | null;
  /** Why the launch was refused (problem code and detail). */
  error?: { status: number; code: string; detail: string };
}

/** What a suite measured for one agent, over its runs that finished with scores. */
export interface SuiteAgentAggregate {
  agent: SuiteAgent;
  runs: { total: number; finished: number; by_status: Partial<Record<SuiteEntryStatus, number>> };
  /** Mean index of the finished runs, `null` before any finished. */
  index: number | null;
  /** Mean score per dimension over the finished runs that measured it. */
  dimensions: DimensionScores | null;
  /** Share of finished runs whose compliance status is `pass`. */
  pass_rate: number | null;
  /** Failures of the finished runs, counted by failure code. */
  failures_by_code: Record<string, number>;
  /**
   * Calls, cached answers, tokens, latency and cost summed over the runs that ended with usage totals (`null`
   * before any did); latency percentiles are per run only.
   */
  usage: RunUsage | null;
}

/** A suite with its aggregates (`GET /api/v1/suites/:suite_id`). */
export interface SuiteView {
  suite_id: string;
  name: string | null;
  /** `launching` while runs are being queued, `running` until every run ended, then `finished`. */
  status: 'launching' | 'running' | 'finished';
  created_at: string;
  created_by: string | null;
  query: CatalogQuery | null;
  scenario_ids: string[];
  agents: SuiteAgentAggregate[];
  runs: SuiteRun[];
  /** Present when every run was asked to use the response cache. */
  cache?: boolean;
  /** Fields of the verdict policy every run was asked to apply over its scenario's. */
  verdict?: VerdictPolicyInput;
  /** The suite's certificate once every run has one, and where to verify it. */
  certificate: { status: 'issued' | 'pending' | 'unavailable'; detail: string; url: string | null; verify_url: string | null };
}

/** The `suites` service slot. */
export interface SuiteService {
  /** The suite with its per-agent aggregates and run ids, or `null` when there is none with this id. */
  get(suiteId: string): Promise<SuiteView | null>;
}

// The slot is declared here rather than in services.ts, beside the shapes it serves (docs/plugins.md,
// "Services plugins provide each other").
declare module '../services.ts' {
  interface ServiceSlots {
    /** Suites of scenarios × agents with their per-agent aggregates (plugins/suites), for comparisons and reports. */
    suites: SuiteService;
  }
}
