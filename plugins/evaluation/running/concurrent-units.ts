/**
 * Independent tasks run side by side (issue 15 item 8). A scenario whose tasks are their own conversations
 * (`conversation: "per_task"`) runs up to its concurrency of units at once; each unit records into its own
 * buffer, and finished units are committed to the trace in unit order. The trace and the handoff token
 * therefore look exactly as a sequential run's would (a checkpoint covers a prefix of whole units), and a
 * crash loses only the units in flight: they run again when the run resumes.
 *
 * Events in a buffer carry provisional sequence numbers (far above any real one); committing gives them their
 * real numbers and rewrites the references a unit makes to its own events (`metric_result` failures'
 * `event_index`, `state_change`'s `tool_call_event`).
 */
import type { TraceEvent } from '../../../core/domain/trace.ts';
import type { RunContext } from './run-context.ts';
import { unitAt, type RunPlan } from '../submission/plan.ts';
import { runUnit, type UnitRecorder } from '../units/unit.ts';

/** Provisional sequence numbers start here; unit `i` owns [base + i·2^24, base + (i+1)·2^24). */
const PROVISIONAL_BASE = 2 ** 40;
const PER_UNIT = 2 ** 24;

/** How many units of this run may be in flight: 1 unless its tasks are independent; at most `cap` (`AEH_RUN_CONCURRENCY`). */
export function runConcurrency(plan: RunPlan, cap: number): number {
  if (plan.scenario.conversation !== 'per_task') return 1;
  return Math.max(1, Math.min(plan.scenario.concurrency ?? cap, cap));
}

interface Buffered {
  recorder: UnitRecorder;
  /** Writes the unit's events to the trace, in order, with real sequence numbers. */
  commit(): void;
}

function remap(type: string, data: Record<string, unknown>, real: Map<number, number>): Record<string, unknown> {
  const fix = (value: unknown) => (typeof value === 'number' && real.has(value) ? real.get(value)! : value);
  if (type === 'metric_result' && Array.isArray(data.failures) && data.failures.length) {
    return { ...data, failures: data.failures.map((failure: Record<string, unknown>) => ({ ...failure, event_index: fix(failure.event_index) })) };
  }
  if (type === 'state_change' && data.tool_call_event !== undefined) return { ...data, tool_call_event: fix(data.tool_call_event) };
  return data;
}

function bufferedRecorder(run: RunContext, index: number): Buffered {
  const base = PROVISIONAL_BASE + index * PER_UNIT;
  const events: TraceEvent[] = [];
  return {
    recorder(type, input) {
      const event: TraceEvent = { seq: base + events.length, type, ts: new Date(run.engine.services.now()).toISOString(), run_id: run.task.run_id, task_id: input.task_id ?? null, agent: input.agent ?? null, data: input.data };
      if (input.variant) event.variant = input.variant;
      if (input.trial !== undefined) event.trial = input.trial;
      events.push(event);
      return event;
    },
    commit() {
      const real = new Map<number, number>();
      for (const event of events) {
        const seq = run.writer.emit(event.type, { task_id: event.task_id, agent: event.agent, ...(event.variant ? { variant: event.variant } : {}), ...(event.trial !== undefined ? { trial: event.trial } : {}), data: remap(event.type, event.data, real) });
        real.set(event.seq, seq);
        run.state.observe(run.writer.last()!);
      }
    },
  };
}

/**
 * Runs units `from`… with up to `limit` in flight, committing each in order and calling `committed(next)` after
 * each commit (where the runner checkpoints). Resolves with the index after the last committed unit; a unit
 * whose agent call failed ends the run there, and the units after it are dropped.
 */
export async function runUnitsConcurrently(run: RunContext, from: number, limit: number, committed: (next: number) => Promise<void>): Promise<number> {
  const inFlight = new Map<number, Promise<{ ok: boolean; buffered: Buffered }>>();
  let nextToStart = from;
  let nextToCommit = from;
  const hasVariants = run.plan.variants.length > 0;
  const start = (index: number) => {
    const buffered = bufferedRecorder(run, index);
    inFlight.set(index, runUnit(run, index, buffered.recorder, true).then((ok) => ({ ok, buffered })));
  };
  try {
    while (nextToCommit < run.total) {
      if (run.signal.aborted) throw run.signal.reason;
      // The original of a task reads its variants' outcomes (robustness): it starts once they are committed.
      while (inFlight.size < limit && nextToStart < run.total && (!hasVariants || unitAt(run.plan, nextToStart).variantIndex >= 0 || nextToStart === nextToCommit)) start(nextToStart++);
      const { ok, buffered } = await inFlight.get(nextToCommit)!;
      inFlight.delete(nextToCommit);
      buffered.commit();
      if (!ok) return nextToCommit;
      nextToCommit++;
      await committed(nextToCommit);
    }
    return nextToCommit;
  } finally {
    // Units started past a failure or a stop: their calls may still be running; none of them is recorded.
    await Promise.allSettled(inFlight.values());
  }
}
