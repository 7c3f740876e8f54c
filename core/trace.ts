/**
 * Trace events: one JSON object per line of a run's `.jsonl` trace, appended as the run goes.
 */

export type TraceEventType =
  | 'run_start'
  | 'input'
  | 'agent_output'
  | 'tool_call'
  | 'handoff'
  | 'metric_result'
  | 'error'
  | 'run_end';

export interface TraceEvent {
  /** 0-based sequence number, continuous across the whole run. */
  seq: number;
  type: TraceEventType;
  /** ISO 8601 timestamp. */
  ts: string;
  run_id: string;
  task_id?: string;
  /** The topology agent the event concerns. */
  agent?: string;
  /** Mutated variant id, when the event belongs to a variant of the scenario. */
  variant?: string;
  data: Record<string, unknown>;
}
