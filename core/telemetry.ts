/**
 * In-process telemetry counters reported by `GET /api/info`. Counters are per instance; shared totals
 * (runs, certificates) come from storage.
 */

export interface Telemetry {
  increment(name: string, by?: number): void;
  snapshot(): Record<string, number>;
  /** `JSON.stringify(snapshot())`, without building the object: `/api/info` serves it on every poll. */
  json(): string;
}

export function createTelemetry(): Telemetry {
  const counters = new Map<string, number>();
  // The names sorted, kept until a new counter appears: monitoring polls the snapshot on every `/api/info`.
  let sorted: string[] | undefined;
  // Each name as a JSON key (`"http.requests":`), made with the sorted list.
  let quoted: string[] = [];
  const names = () => {
    if (!sorted) {
      sorted = [...counters.keys()].sort((a, b) => a.localeCompare(b));
      quoted = sorted.map((name) => `${JSON.stringify(name)}:`);
    }
    return sorted;
  };
  return {
    increment(name, by = 1) {
      const value = counters.get(name);
      if (value === undefined) sorted = undefined;
      counters.set(name, (value ?? 0) + by);
    },
    snapshot() {
      const snapshot: Record<string, number> = {};
      for (const name of names()) snapshot[name] = counters.get(name)!;
      return snapshot;
    },
    json() {
      const list = names();
      let out = '{';
      for (let index = 0; index < list.length; index++) out += `${index ? ',' : ''}${quoted[index]}${JSON.stringify(counters.get(list[index]!))}`;
      return `${out}}`;
    },
  };
}
