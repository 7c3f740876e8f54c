import { describe, it, expect } from 'vitest';
import { createTelemetry } from './telemetry.ts';

describe('core: telemetry', () => {
  it('snapshots counters sorted by name, as an object and as the same JSON, new counters included', () => {
    const telemetry = createTelemetry();
    expect(telemetry.snapshot()).toEqual({});
    expect(telemetry.snapshotJson()).toBe('{}');
    telemetry.increment('http.requests');
    telemetry.increment('b"quoted\\name', 2);
    telemetry.increment('http.requests');
    expect(JSON.parse(telemetry.snapshotJson())).toEqual(telemetry.snapshot());
    telemetry.increment('a.first', 0.5);
    expect(Object.keys(telemetry.snapshot())).toEqual(['a.first', 'b"quoted\\name', 'http.requests']);
    expect(telemetry.snapshotJson()).toBe(JSON.stringify({ 'a.first': 0.5, 'b"quoted\\name': 2, 'http.requests': 2 }));
  });
});
