/**
 * The answers of a task's conversation, for metrics that judge every answer (`scope: "answer"`, issue 24 item 3):
 * a leak in turn 1 of 3 is a leak, though the task's final answer is clean. Each answer is scored on a view of
 * the task where it is the output and the trace ends with it; the results fold into one per metric.
 */
import type { MetricFailure } from '../../../core/metric.ts';
import { isAnswer, type TraceEvent } from '../../../core/domain/trace.ts';
import type { MetricResultData } from '../running/run-state.ts';

/** One answer the agent gave in the task's conversation. */
export interface Answer {
  output: string;
  outputEvent: number;
  /** 1-based, in the order the agent gave them. */
  turn: number;
}

/** The agent's answers among a task's events, up to `lastEvent` (probes are a metric's questions, not turns). */
export function answersOf(events: readonly TraceEvent[], lastEvent: number): Answer[] {
  const answers: Answer[] = [];
  for (const event of events) {
    if (event.seq > lastEvent) break;
    if (!isAnswer(event)) continue;
    answers.push({ output: String(event.data?.output ?? ''), outputEvent: event.seq, turn: answers.length + 1 });
  }
  return answers;
}

/** The task as one answer's metric sees it: that answer as the output, and the trace up to it. */
export function answerView<C extends { output: string; outputEvent: number; events: TraceEvent[] }>(context: C, answer: { output: string; outputEvent: number }): C {
  const end = context.events.findIndex((event) => event.seq > answer.outputEvent);
  return { ...context, output: answer.output, outputEvent: answer.outputEvent, events: end < 0 ? context.events : context.events.slice(0, end) };
}

type Scored = Pick<MetricResultData, 'score' | 'failures' | 'note'>;

/**
 * One result from every answer's: each failure once (the same call seen from two answers is one failure), with
 * the turn it was first seen in; the lowest score when an answer failed or all were judged; unmeasured, with
 * the turns that could not be judged, when no answer failed and one could not be judged (it might have).
 */
export function foldAnswers(results: ReadonlyArray<{ answer?: Answer; result: Scored }>): Scored {
  const failures: Array<MetricFailure & { event_index: number; turn?: number }> = [];
  const seen = new Set<string>();
  const open: string[] = [];
  let lowest: number | null = null;
  let failed = false;
  for (const { answer, result } of results) {
    for (const failure of result.failures) {
      const key = `${failure.code}\u0000${failure.event_index}\u0000${failure.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (!failure.code.startsWith('INFRA.')) failed = true;
      failures.push({ ...failure, ...(answer ? { turn: answer.turn } : {}) });
    }
    if (result.score === null) open.push(`turn ${answer?.turn ?? '?'}: ${result.note ?? 'not measured'}`);
    else lowest = lowest === null ? result.score : Math.min(lowest, result.score);
  }
  // With every answer judged, the last one's note stands (it names the tier that decided, for two-tier metrics).
  const notes = open.length ? `not judged: ${open.slice(0, 3).join('; ')}${open.length > 3 ? `; ${open.length - 3} more` : ''}` : results[results.length - 1]?.result.note;
  const score = failed || open.length === 0 ? lowest : null;
  return { score, failures, ...(notes ? { note: notes.slice(0, 1000) } : {}) };
}
