/**
 * CPU time a piece of work took in this process, for the tests that bound how long hostile input may take
 * (linear patterns). Unlike wall-clock time it does not grow when other processes share the machine's cores
 * (the suite runs two files at a time, beside whatever else the machine does), so the bound holds on a loaded
 * machine and still catches a super-linear pattern, which would use the CPU for far longer.
 */

/** Milliseconds of CPU (user + system) this process spent in `work`. */
export async function cpuMs(work: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/**
 * The wall-clock timeout of a test whose bound is `cpuMs`: CPU is what such a test judges, and a machine busy
 * with other work stretches wall time several-fold (a 5 s CPU bound once took 32 s of wall time beside three
 * other suites), so the runner's default 30 s must not fail it first.
 */
export const CPU_BOUND_TIMEOUT_MS = 240_000;
