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
  return {
    increment(name, by = 1) {
      counters.set(name, (counters.get(name) ?? 0) + by);
    },
    snapshot() {
      return Object.fromEntries([...counters.entries()].sort(([a], [b]) => a.localeCompare(b)));
    },
  };
}
