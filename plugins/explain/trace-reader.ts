/**
 * Reads a stored trace line by line from a stream, so explaining a run never holds more than the parsed
 * events (a trace of any size is read in chunks).
 */
import type { Store } from '../../core/storage.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';

/** Parses every line of a run's trace; lines that are not JSON objects are skipped. */
export async function readTraceEvents(store: Store, key: string): Promise<TraceEvent[]> {
  const stream = await store.stream(key);
  if (!stream) return [];
  const decoder = new TextDecoder();
  const events: TraceEvent[] = [];
  let pending = '';
  const take = (line: string) => {
    if (!line.trim()) return;
    try {
      const event = JSON.parse(line) as TraceEvent;
      if (event && typeof event === 'object' && typeof event.seq === 'number') events.push(event);
    } catch {
      // a torn last line (crash mid-append) is not an event
    }
  };
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      take(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  }
  take(pending + decoder.decode());
  return events.sort((a, b) => a.seq - b.seq);
}
