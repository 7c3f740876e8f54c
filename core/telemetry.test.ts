import { describe, it, expect } from 'vitest';
import { createTelemetry } from './telemetry.ts';

describe('core: telemetry', () => {
  it('snapshots counters sorted by name, new counters included', () => {
    const telemetry = createTelemetry();
    expect(telemetry.snapshot()).toEqual({});
    expect(JSON.stringify(telemetry.snapshot())).toBe('{}');
    telemetry.increment('http.requests');
    telemetry.increment('b"quoted\\name', 2);
    telemetry.increment('http.requests');
    expect(telemetry.snapshot()).toEqual({ 'b"quoted\\name': 2, 'http.requests': 2 });
    telemetry.increment('a.first', 0.5);
    expect(Object.keys(telemetry.snapshot())).toEqual(['a.first', 'b"quoted\\name', 'http.requests']);
    expect(JSON.stringify(telemetry.snapshot())).toBe(JSON.stringify({ 'a.first': 0.5, 'b"quoted\\name': 2, 'http.requests': 2 }));
  });

  it('serialises as JSON.stringify of its snapshot, whatever was added since the last call', () => {
    const telemetry = createTelemetry();
    expect(telemetry.json()).toBe('{}');
    telemetry.increment('http.requests');
    expect(telemetry.json()).toBe(JSON.stringify(telemetry.snapshot()));
    telemetry.increment('b"quoted\\name', 2);
    telemetry.increment('a.first', 0.5);
    telemetry.increment('http.requests');
    expect(telemetry.json()).toBe(JSON.stringify(telemetry.snapshot()));
    expect(JSON.parse(telemetry.json())).toEqual({ 'a.first': 0.5, 'b"quoted\\name': 2, 'http.requests': 2 });
  });
});
