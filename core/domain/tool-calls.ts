/** The tool calls of a task as its trace records them (`tool_call` events), in order, probes left out. */
import type { TraceEvent } from './trace.ts';
import { canonicalToolName } from './tool-names.ts';

export interface RecordedToolCall {
  name: string;
  arguments: unknown;
  result?: unknown;
  error?: { code: string; message: string };
  event_index: number;
}

export function toolCallsOf(events: readonly TraceEvent[]): RecordedToolCall[] {
  return events
    .filter((event) => event.type === 'tool_call' && event.data.probe !== true)
    .map((event) => ({
      name: canonicalToolName(String(event.data.name ?? '')),
      arguments: event.data.arguments ?? null,
      ...(event.data.result !== undefined ? { result: event.data.result } : {}),
      ...(event.data.error !== undefined ? { error: event.data.error as RecordedToolCall['error'] } : {}),
      event_index: event.seq,
    }));
}
