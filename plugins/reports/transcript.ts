/**
 * A run's transcript, task by task, from its trace: the inputs, every turn of the agent, its tool calls with
 * arguments and results, the world-state changes they made, turn checks, handoffs, errors and each metric's
 * verdict with its failures and evidence. Every value passes the redactor (against the whole scenario's
 * canaries) and every string longer than `maxChars` is cut after masking, so the transcript can leave the
 * service. The HTML report, `GET /api/v1/runs/:run_id/transcript` and the console's run page all read this.
 */
import type { Redactor } from '../../core/redactor.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';

/** One event of a unit as the transcript shows it: the trace event's fields and its redacted, clipped data. */
export interface TranscriptEntry {
  seq: number;
  type: string;
  ts: string;
  agent: string | null;
  data: Record<string, unknown>;
}

export type UnitOutcome = 'pass' | 'fail' | 'unmeasured' | 'error';

/** One task of the original run, or of a mutated variant, or one attempt of repeated trials. */
export interface TranscriptUnit {
  task_id: string;
  variant?: string;
  trial?: number;
  outcome: UnitOutcome;
  entries: TranscriptEntry[];
}

export interface Transcript {
  /** `run_start` and `run_end` (and any other event of no task). */
  run: TranscriptEntry[];
  units: TranscriptUnit[];
}

export interface TranscriptOptions {
  redactor: Redactor;
  scenario?: Scenario;
  /** The longest string shown, in characters, after masking (default 20,000). */
  maxChars?: number;
}

const DEFAULT_MAX_CHARS = 20_000;
const MAX_DEPTH = 24;

/** Cuts every string of a JSON value to `max` characters, saying how much was left out. */
function clipStrings(value: unknown, max: number, depth = 0): unknown {
  if (typeof value === 'string') return value.length <= max ? value : `${value.slice(0, max)}… [${value.length - max} more characters not shown; the trace holds them]`;
  if (!value || typeof value !== 'object' || depth > MAX_DEPTH) return depth > MAX_DEPTH ? '[nested too deep]' : value;
  if (Array.isArray(value)) return value.map((item) => clipStrings(item, max, depth + 1));
  const clipped: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) clipped[key] = clipStrings(item, max, depth + 1);
  return clipped;
}

function outcomeOf(entries: readonly TranscriptEntry[]): UnitOutcome {
  let measured = false;
  let failed = false;
  for (const entry of entries) {
    if (entry.type === 'error') return 'error';
    if (entry.type !== 'metric_result') continue;
    const failures = entry.data.failures;
    // The harness's own faults (INFRA.*) leave a metric unmeasured; they are no failure of the agent.
    if (Array.isArray(failures) && failures.some((failure) => !String((failure as { code?: unknown })?.code ?? '').startsWith('INFRA.'))) failed = true;
    if (typeof entry.data.score === 'number') measured = true;
  }
  return failed ? 'fail' : measured ? 'pass' : 'unmeasured';
}

/** Groups a run's events into units in the order they first appear, redacting and clipping each event's data. */
export function buildTranscript(events: readonly TraceEvent[], options: TranscriptOptions): Transcript {
  const { redactor, scenario } = options;
  const max = options.maxChars ?? DEFAULT_MAX_CHARS;
  const scope = { scenario };
  const run: TranscriptEntry[] = [];
  const units = new Map<string, TranscriptUnit>();
  for (const event of events) {
    const entry: TranscriptEntry = {
      seq: event.seq,
      type: event.type,
      ts: event.ts,
      agent: event.agent ?? null,
      data: clipStrings(redactor.value(event.data ?? {}, scope), max) as Record<string, unknown>,
    };
    if (typeof event.task_id !== 'string') {
      run.push(entry);
      continue;
    }
    const key = `${event.variant ?? ''}\u0000${event.trial ?? ''}\u0000${event.task_id}`;
    let unit = units.get(key);
    if (!unit) {
      unit = { task_id: event.task_id, ...(event.variant ? { variant: event.variant } : {}), ...(event.trial !== undefined ? { trial: event.trial } : {}), outcome: 'unmeasured', entries: [] };
      units.set(key, unit);
    }
    unit.entries.push(entry);
  }
  for (const unit of units.values()) unit.outcome = outcomeOf(unit.entries);
  return { run, units: [...units.values()] };
}
