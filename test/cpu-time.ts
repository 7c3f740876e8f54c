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
