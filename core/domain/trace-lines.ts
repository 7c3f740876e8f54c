/**
 * Reading a stored trace back, line by line from the store's stream, so a reader of a trace of any size holds
 * only what it keeps. Readers that need a few event types (a comparison needs the answers) test the raw line
 * before parsing it: most lines of a long run are never parsed.
 */
import type { Store } from '../storage.ts';
import type { TraceEvent, TraceEventType } from './trace.ts';
import { keys } from './runs.ts';

/** Calls `visit` with every non-empty line of a run's trace, in order; a missing trace has none. */
export async function forEachTraceLine(store: Store, runId: string, visit: (line: string) => void): Promise<void> {
  const stream = await store.stream(keys.trace(runId));
  if (!stream) return;
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    let start = 0;
    let newline = pending.indexOf('\n', start);
    while (newline >= 0) {
      if (newline > start) visit(pending.slice(start, newline));
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending.trim()) visit(pending);
}

/** Options of `readTraceEvents`. */
export interface ReadTraceOptions {
  /** Only events of these types are parsed and kept (all when absent). */
  types?: readonly TraceEventType[];
}

/**
 * The events of a run's trace, in `seq` order. Lines that are not JSON objects with a numeric `seq` are
 * skipped (a torn last line after a crash is not an event).
 */
export async function readTraceEvents(store: Store, runId: string, options: ReadTraceOptions = {}): Promise<TraceEvent[]> {
  const markers = options.types?.map((type) => `"type":"${type}"`);
  const events: TraceEvent[] = [];
  let ordered = true;
  await forEachTraceLine(store, runId, (line) => {
    if (markers && !markers.some((marker) => line.includes(marker))) return;
    let event: TraceEvent;
    try {
      event = JSON.parse(line) as TraceEvent;
    } catch {
      return;
    }
    if (!event || typeof event !== 'object' || typeof event.seq !== 'number') return;
    if (options.types && !options.types.includes(event.type)) return;
    if (events.length && events[events.length - 1]!.seq > event.seq) ordered = false;
    events.push(event);
  });
  return ordered ? events : events.sort((a, b) => a.seq - b.seq);
}
