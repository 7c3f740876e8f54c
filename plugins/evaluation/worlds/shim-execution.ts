/**
 * How a run's shim work runs (core/domain/shim-run.ts): in the offload pool under `AEH_SHIM_BUDGET_MS`, as
 * the work of the principal that submitted the run (the pool takes turns between principals), and at most
 * `AEH_RUN_SHIM_CALLS` jobs of the run at once (default: half the pool, at least one), so that a run whose
 * agent floods slow queries leaves workers for everyone else. One per run, shared by its task worlds.
 */
import type { Config } from '../../../core/config.ts';
import { principalGroup, type Offload } from '../../../core/capabilities.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';
import { createLimiter } from '../../../core/keyed-queue.ts';
import type { RunContext } from '../running/run-context.ts';

/** How many of one run's shim jobs may be in the pool at once. */
export function runShimCalls(config: Pick<Config, 'runShimCalls'>, offload: Offload): number {
  return config.runShimCalls > 0 ? config.runShimCalls : Math.max(1, Math.floor(offload.size / 2));
}

const executions = new WeakMap<RunContext, ShimExecution>();

/** The shim execution of `run`, made on first use. */
export function shimExecutionOf(run: RunContext): ShimExecution {
  let execution = executions.get(run);
  if (!execution) {
    const { config, capabilities } = run.engine.services;
    const offload = capabilities.offload;
    execution = {
      offload,
      budgetMs: config.shimBudgetMs,
      signal: run.signal,
      group: principalGroup(run.task.submitted_by, `run:${run.task.run_id}`),
      ...(offload ? { limit: createLimiter(runShimCalls(config, offload)) } : {}),
    };
    executions.set(run, execution);
  }
  return execution;
}
