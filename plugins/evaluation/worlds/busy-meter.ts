/**
 * How long the harness was busy on an agent's behalf: the wall-clock time its world spent on the agent's tool
 * calls (waiting for the world's turn and the worker pool included), calls in flight counted up to now. An agent's
 * call timeout counts the agent's own time only (call-agent.ts): on a busy machine, or behind the run's other
 * tasks' calls in the pool, the harness's tools can be slow, and that must not end the run as the agent's timeout
 * (issue 36: nothing outside the agent changes a verdict). Overlapping calls count once.
 */
export interface BusyMeter {
  /** Runs `work`, counting the time while it is in flight. */
  during<T>(work: () => Promise<T>): Promise<T>;
  /** Milliseconds spent so far, an unfinished call's time included. */
  busyMs(): number;
}

export function createBusyMeter(now: () => number = () => performance.now()): BusyMeter {
  let inFlight = 0;
  let since = 0;
  let total = 0;
  return {
    async during(work) {
      if (inFlight++ === 0) since = now();
      try {
        return await work();
      } finally {
        if (--inFlight === 0) total += now() - since;
      }
    },
    busyMs: () => total + (inFlight > 0 ? now() - since : 0),
  };
}
