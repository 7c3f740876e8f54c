/**
 * The worker side of shim work that may run long (issue 13's "no input may stall the process" applied to the
 * world): a shim that names its own module (`Shim.module`: the SQL shim runs an agent's SQL and a scenario's
 * schema) builds its initial state and answers its calls in the offload pool, under the shim budget.
 * Imported by the worker only; shim-run.ts names it by URL.
 */
import type { Json, Shim, ShimCallContext, ShimOutcome } from '../shim.ts';

/** One call of a shim's action. */
export interface ShimCallJob {
  /** The shim's module URL: its default export is the shim. */
  module: string;
  action: string;
  params: Record<string, unknown>;
  state: Json;
  context: ShimCallContext;
}

/** The building of a shim's initial state from a scenario's seed. */
export interface ShimStateJob {
  module: string;
  seed: unknown;
  context: ShimCallContext;
}

const shims = new Map<string, Promise<Shim>>();

function shimAt(module: string): Promise<Shim> {
  let shim = shims.get(module);
  if (!shim) {
    shim = import(module).then((loaded: { default: Shim }) => loaded.default);
    shims.set(module, shim);
  }
  return shim;
}

/** Runs one shim call in this worker. */
export async function runShimCall(job: ShimCallJob): Promise<ShimOutcome> {
  return (await shimAt(job.module)).call(job.action, job.params, job.state, job.context);
}

/** Builds a shim's initial state in this worker. */
export async function buildShimState(job: ShimStateJob): Promise<Json> {
  return (await shimAt(job.module)).initialState(job.seed, job.context);
}
