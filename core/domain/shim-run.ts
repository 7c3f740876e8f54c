/**
 * Where shim work runs. A shim that names its module (`Shim.module`) is worked in the offload pool, off the
 * request thread, each job under the shim budget (`AEH_SHIM_BUDGET_MS`): its calls, and the building of its
 * initial state from a scenario (at submission, when a run's task starts, when a named configuration is
 * stored). Jobs carry their principal as the pool's group, so principals take turns for the workers, and a
 * run's calls go through its limiter, so one run never fills the pool. Without a pool (workerd,
 * `AEH_METRIC_WORKERS=0`) everything runs inline.
 */
import type { Json, Shim, ShimCallContext, ShimOutcome } from '../shim.ts';
import { OffloadBudgetError, type Offload } from '../capabilities.ts';
import type { Limiter } from '../keyed-queue.ts';
import { Problem } from '../problems.ts';

/** Where and how long shim work runs. */
export interface ShimExecution {
  /** The offload pool; absent: inline. */
  offload?: Offload;
  /** Milliseconds one job may run once a worker starts it. */
  budgetMs: number;
  /** A cancelled run stops its jobs. */
  signal?: AbortSignal;
  /** Whose work it is (the pool's `OffloadJob.group`). */
  group?: string;
  /** Bounds the jobs of one run in the pool at once (`AEH_RUN_SHIM_CALLS`). */
  limit?: Limiter;
}

/** A shim's initial state did not build within the budget: its worker was stopped. */
export class ShimBudgetError extends Error {
  readonly shim: string;
  readonly budgetMs: number;

  constructor(shim: string, budgetMs: number) {
    super(`the ${shim} shim's initial state did not build within ${budgetMs} ms (AEH_SHIM_BUDGET_MS): make its schema or rows smaller`);
    this.name = 'ShimBudgetError';
    this.shim = shim;
    this.budgetMs = budgetMs;
  }
}

/** The 422 a request gets for a world that did not build within the budget, naming where it came from. */
export function shimBudgetProblem(error: ShimBudgetError, path: string): Problem {
  return new Problem('budget_exceeded', { detail: error.message, errors: [{ path, message: `did not build within ${error.budgetMs} ms (AEH_SHIM_BUDGET_MS)` }], extra: { budget_ms: error.budgetMs } });
}

const jobsModule = () => new URL(`./shim-jobs.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

function offloaded(shim: Shim, execution: ShimExecution): Offload | undefined {
  return shim.module ? execution.offload : undefined;
}

async function inPool(offload: Offload, name: string, input: unknown, execution: ShimExecution): Promise<unknown> {
  return runShimJob(offload, { module: jobsModule(), name, input, preload: [(input as { module: string }).module] }, execution);
}

/**
 * Runs a job as shim work in the pool: under the shim budget (its modules' loading not counted), as the
 * execution's group, through its limiter (`AEH_RUN_SHIM_CALLS`). Rejects as `Offload.run` does.
 */
export function runShimJob(offload: Offload, job: { module: string; name: string; input: unknown; preload: string[] }, execution: ShimExecution): Promise<unknown> {
  const run = () => offload.run({ ...job, budgetMs: execution.budgetMs, signal: execution.signal, group: execution.group });
  return execution.limit ? execution.limit(run) : run();
}

/** Builds a shim's initial state; throws `ShimBudgetError` past the budget, the shim's own error if it refuses. */
export async function buildShimState(shim: Shim, seed: unknown, context: ShimCallContext, execution: ShimExecution): Promise<Json> {
  const offload = offloaded(shim, execution);
  if (!offload) return shim.initialState(seed, context);
  try {
    return await inPool(offload, 'buildShimState', { module: shim.module, seed, context }, execution) as Json;
  } catch (error) {
    if (error instanceof OffloadBudgetError) throw new ShimBudgetError(shim.name, execution.budgetMs);
    if ((error as Error)?.name === 'OffloadUnavailable') return shim.initialState(seed, context);
    throw error;
  }
}

/**
 * Runs one call. Past the budget the call fails with `timeout`; a call whose work failed in any other way (the
 * shim threw, its worker died) fails with `unavailable`: either way the state is unchanged and the run goes on.
 * Only a cancelled run's abort is thrown.
 */
export async function callShim(shim: Shim, action: string, params: Record<string, unknown>, state: Json, context: ShimCallContext, execution: ShimExecution): Promise<ShimOutcome> {
  const offload = offloaded(shim, execution);
  try {
    if (!offload) return await shim.call(action, params, state, context);
    try {
      return await inPool(offload, 'runShimCall', { module: shim.module, action, params, state, context }, execution) as ShimOutcome;
    } catch (error) {
      if ((error as Error)?.name !== 'OffloadUnavailable') throw error;
      return await shim.call(action, params, state, context);
    }
  } catch (error) {
    if (execution.signal?.aborted) throw error;
    if (error instanceof OffloadBudgetError) return { error: { code: 'timeout', message: `the call ran past its ${execution.budgetMs} ms budget and was stopped; nothing changed` }, state };
    return { error: { code: 'unavailable', message: `the call failed and changed nothing: ${String((error as Error)?.message ?? error).slice(0, 200)}` }, state };
  }
}
