/**
 * A run's transcripts as JSONL (`GET /api/v1/runs/:run_id/transcripts.jsonl`), in the plain form the `replay`
 * adapter reads: per answer `{"task_id", "variant"?, "trial"?, "turn", "input", "output", "latency_ms", "tool_calls"?}`,
 * the first answer of a task preceded by its tool calls as `{"type": "tool_call", …}` lines (what replay reads).
 * Probes (a metric asking again) are left out, as replay leaves them out. Replaying the export gives each task
 * the answer it got in the run.
 */
import type { TraceEvent } from '../../core/domain/trace.ts';
import type { Redactor, RedactionScope } from '../../core/redactor.ts';

const encoder = new TextEncoder();

/** Turns a trace's lines into transcript lines; `redact` masks every string when given. */
export function transcriptLines(traceText: string, redact?: { redactor: Redactor; scope: RedactionScope }): string[] {
  const entries: Array<{ answer: Record<string, unknown>; tools: Array<Record<string, unknown>> }> = [];
  const lastInput = new Map<string, string>();
  const lastEntry = new Map<string, (typeof entries)[number]>();
  const early = new Map<string, Array<Record<string, unknown>>>();
  const turns = new Map<string, number>();
  const mask = <T>(value: T): T => (redact ? redact.redactor.value(value, redact.scope) : value);
  for (const line of traceText.split('\n')) {
    if (!line.trim()) continue;
    let event: TraceEvent;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof event?.task_id !== 'string') continue;
    const key = `${event.variant ?? ''}\u0000${event.trial ?? ''}\u0000${event.task_id}`;
    const where = { task_id: event.task_id, ...(event.variant ? { variant: event.variant } : {}), ...(event.trial !== undefined ? { trial: event.trial } : {}) };
    const data = event.data ?? {};
    if (event.type === 'input' && !data.probe && typeof data.input === 'string') lastInput.set(key, data.input);
    else if (event.type === 'tool_call') {
      const call = mask({ name: data.name, arguments: data.arguments, result: data.result });
      // Our traces log a call after the answer it belongs to.
      const entry = lastEntry.get(key);
      if (entry) entry.tools.push({ ...where, call });
      else early.set(key, [...(early.get(key) ?? []), { ...where, call }]);
    } else if (event.type === 'agent_output' && !data.probe && typeof data.output === 'string') {
      const turn = turns.get(key) ?? 0;
      turns.set(key, turn + 1);
      const entry = { answer: { key, ...where, turn, input: mask(lastInput.get(key) ?? null), output: mask(data.output), ...(typeof data.latency_ms === 'number' ? { latency_ms: data.latency_ms } : {}) }, tools: early.get(key) ?? [] };
      early.delete(key);
      entries.push(entry);
      lastEntry.set(key, entry);
    }
  }
  const lines: string[] = [];
  for (const { answer, tools } of entries) {
    const { key: _key, ...shown } = answer;
    // Replay reads `tool_call` lines before an answer as that answer's calls, and replays the first answer of a task.
    if (answer.turn === 0) for (const tool of tools) lines.push(JSON.stringify({ type: 'tool_call', task_id: tool.task_id, ...(tool.variant ? { variant: tool.variant } : {}), ...(tool.trial !== undefined ? { trial: tool.trial } : {}), data: tool.call }));
    lines.push(JSON.stringify({ ...shown, ...(tools.length ? { tool_calls: tools.map((tool) => tool.call) } : {}) }));
  }
  return lines;
}

/** The JSONL bytes of a transcript. */
export function transcriptBytes(lines: string[]): Uint8Array {
  return encoder.encode(lines.length ? `${lines.join('\n')}\n` : '');
}
