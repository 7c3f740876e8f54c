/**
 * The worker side of shim calls that may run long (issue 13's "no input may stall the process" applied to the
 * world): a shim that names its own module (`Shim.module`, the SQL shim, which runs an agent's SQL) is called in
 * the offload pool under the shim budget. Imported by the worker only; the world names it by URL.
 */
import type { Json, Shim, ShimCallContext, ShimOutcome } from '../../core/shim.ts';

export interface ShimCallJob {
  /** The shim's module URL: its default export is the shim. */
  module: string;
  action: string;
  params: Record<string, unknown>;
  state: Json;
  context: ShimCallContext;
}

const shims = new Map<string, Promise<Shim>>();

/** Runs one shim call in this worker. */
export async function runShimCall(job: ShimCallJob): Promise<ShimOutcome> {
  let shim = shims.get(job.module);
  if (!shim) {
    shim = import(job.module).then((loaded: { default: Shim }) => loaded.default);
    shims.set(job.module, shim);
  }
  return (await shim).call(job.action, job.params, job.state, job.context);
}
