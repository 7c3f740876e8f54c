/**
 * In-process telemetry counters reported by `GET /api/info`. Counters are per instance; shared totals
 * (runs, certificates) come from storage.
 */

export interface Telemetry {
  increment(name: string, by?: number): void;
  snapshot(): Record<string, number>;
}

export function createTelemetry(): Telemetry {
  const counters = new Map<string, number>();
  // The names sorted, kept until a new counter appears: monitoring polls the snapshot on every `/api/info`.
  let sorted: string[] | undefined;
  return {
    increment(name, by = 1) {
      const value = counters.get(name);
      if (value === undefined) sorted = undefined;
      counters.set(name, (value ?? 0) + by);
    },
    snapshot() {
      sorted ??= [...counters.keys()].sort((a, b) => a.localeCompare(b));
      const snapshot: Record<string, number> = {};
      for (const name of sorted) snapshot[name] = counters.get(name)!;
      return snapshot;
    },
  };
}
