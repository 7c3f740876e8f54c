/**
 * A module that is slow to get ready, for the offload pool's test (runtime/node/offload.test.ts): its
 * `warmUp()` takes half a second, as a WebAssembly engine's start may on a cold worker.
 */
let warmed = false;

export const SLOW_MODULE = import.meta.url;

/** Half a second of getting ready (the pool awaits it before the job's budget starts). */
export async function warmUp(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  warmed = true;
}

/** Whether `warmUp` finished before the job ran. */
export function wasWarmed(): boolean {
  return warmed;
}
