/**
 * In-process telemetry counters reported by `GET /api/info`. Counters are per instance; shared totals
 * (runs, certificates) come from storage.
 */

export interface Telemetry {
  increment(name: string, by?: number): void;
  snapshot(): Record<string, number>;
  /** The snapshot as JSON text, built without the intermediate object (`/api/info` serves it on every poll). */
  snapshotJson(): string;
}

export function createTelemetry(): Telemetry {
  const counters = new Map<string, number>();
  // The names sorted (and quoted for JSON), kept until a new counter appears: monitoring polls the snapshot on
  // every `/api/info`.
  let sorted: string[] | undefined;
  let quoted: string[] | undefined;
  return {
    increment(name, by = 1) {
      const value = counters.get(name);
      if (value === undefined) sorted = quoted = undefined;
      counters.set(name, (value ?? 0) + by);
    },
    snapshot() {
      sorted ??= [...counters.keys()].sort((a, b) => a.localeCompare(b));
      const snapshot: Record<string, number> = {};
      for (const name of sorted) snapshot[name] = counters.get(name)!;
      return snapshot;
    },
    snapshotJson() {
      sorted ??= [...counters.keys()].sort((a, b) => a.localeCompare(b));
      quoted ??= sorted.map((name) => JSON.stringify(name));
      let json = '{';
      for (let index = 0; index < sorted.length; index++) json += `${index ? ',' : ''}${quoted[index]}:${counters.get(sorted[index]!)}`;
      return `${json}}`;
    },
  };
}
