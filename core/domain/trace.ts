/**
 * Trace events and the trace writer: one JSON object per line of a run's `.jsonl` trace, appended as the run
 * goes (api-contract.md "Data on disk"; issue 4 item 8). The writer buffers the lines of one step, appends
 * them in one write and keeps a running SHA3-256 of every byte written, so a handoff token can carry the
 * digest of the trace so far without the trace ever being read back.
 */
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { IncrementalHash } from '../capabilities.ts';

export type TraceEventType =
  | 'run_start'
  | 'input'
  | 'agent_output'
  | 'tool_call'
  /** A world shim's state changed: `data.patch` is the RFC 6902 diff, `data.shim` the shim. */
  | 'state_change'
  /** A check after one turn of a conversation: `data.turn`, `data.assertion`, `data.passed`, `data.detail`. */
  | 'turn_check'
  /** A check of the final world by a shim's named predicate (`task.world_checks`): `data.shim`, `data.check`, `data.passed`, `data.detail`. */
  | 'world_check'
  /** A multi-turn task's conversation ended: `data.turns` (user turns), `data.ended_by`, `data.agent_end_tokens` (end tokens the agent sent the simulated user). */
  | 'conversation_end'
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
  /** The scenario task the event concerns; `null` on run-level events (`run_start`, `run_end`). */
  task_id?: string | null;
  /** The topology agent the event concerns; `null` when the scenario names none. */
  agent?: string | null;
  /** Mutated variant id, when the event belongs to a variant of the scenario. */
  variant?: string;
  /** The attempt (0-based) when the scenario asks for repeated trials. */
  trial?: number;
  data: Record<string, unknown>;
}

/**
 * True for one of the agent's answers in a conversation: an `agent_output` that is not a metric's probe (a
 * question a metric asked the agent, not a turn of the task).
 */
export function isAnswer(event: { type: string; data?: Record<string, unknown> }): boolean {
  return event.type === 'agent_output' && !event.data?.probe;
}

/** Where a trace stands: the next sequence number and the bytes written so far. */
export interface TraceCursor {
  seq: number;
  bytes: number;
}

/** A SHA3-256 that can report the digest of what it has seen so far and keep going. */
export interface RunningDigest {
  update(bytes: Uint8Array): void;
  /** Lower-case hex of SHA3-256 over every byte given so far. */
  hex(): string;
}

/**
 * A running SHA3-256: the runtime's native hash when it can copy its state (node:crypto), @noble/hashes
 * otherwise (portable, slower).
 */
export function runningSha3(native?: () => IncrementalHash): RunningDigest {
  const probe = native?.();
  if (probe?.copy) {
    const hash = probe;
    return { update: (bytes) => void hash.update(bytes), hex: () => bytesToHex(hash.copy!().digest()) };
  }
  const hash = sha3_256.create();
  return { update: (bytes) => void hash.update(bytes), hex: () => bytesToHex(hash.clone().digest()) };
}

/** Fields of one event besides those the writer fills in (`seq`, `ts`, `run_id`). */
export interface TraceEventInput {
  task_id?: string | null;
  agent?: string | null;
  variant?: string;
  trial?: number;
  data: Record<string, unknown>;
}

export interface TraceWriterOptions {
  runId: string;
  /** Appends bytes to the stored trace (`store.append(keys.trace(runId), …)`). */
  append(bytes: Uint8Array): Promise<void>;
  now(): number;
  /** Digest state covering the bytes already stored (empty for a new trace). */
  digest: RunningDigest;
  /** Where the stored trace ends (`{seq: 0, bytes: 0}` for a new trace). */
  start?: TraceCursor;
}

export interface TraceWriter {
  /** Buffers one event and returns its sequence number. */
  emit(type: TraceEventType, event: TraceEventInput): number;
  /** The event as it would be written, for callers that keep it (metric contexts). */
  last(): TraceEvent | undefined;
  /** Appends the buffered lines in one write; a no-op when nothing is buffered. */
  flush(): Promise<void>;
  /** Buffered events not yet flushed. */
  buffered(): number;
  /** Where the flushed trace ends. */
  cursor(): TraceCursor;
  /** SHA3-256 (hex) of the flushed trace. */
  digest(): string;
}

const encoder = new TextEncoder();

/** Creates the writer of one run's trace. */
export function createTraceWriter(options: TraceWriterOptions): TraceWriter {
  const { runId, append, now, digest } = options;
  let nextSeq = options.start?.seq ?? 0;
  let flushedSeq = nextSeq;
  let flushedBytes = options.start?.bytes ?? 0;
  let lines: string[] = [];
  let lastEvent: TraceEvent | undefined;
  // Hot path (several events per task): the fixed fields are rendered once, the timestamp once per millisecond.
  const runIdJson = JSON.stringify(runId);
  let lastMs = Number.NaN;
  let lastTs = '';
  return {
    emit(type, input) {
      const ms = now();
      if (ms !== lastMs) {
        lastMs = ms;
        lastTs = new Date(ms).toISOString();
      }
      const taskId = input.task_id ?? null;
      const agent = input.agent ?? null;
      const event: TraceEvent = { seq: nextSeq++, type, ts: lastTs, run_id: runId, task_id: taskId, agent, data: input.data };
      if (input.variant) event.variant = input.variant;
      if (input.trial !== undefined) event.trial = input.trial;
      // Same bytes as JSON.stringify(event) with the keys in this order.
      lines.push(`{"seq":${event.seq},"type":"${type}","ts":"${lastTs}","run_id":${runIdJson},"task_id":${JSON.stringify(taskId)},"agent":${JSON.stringify(agent)},${input.variant ? `"variant":${JSON.stringify(input.variant)},` : ''}${input.trial !== undefined ? `"trial":${input.trial},` : ''}"data":${JSON.stringify(input.data)}}`);
      lastEvent = event;
      return event.seq;
    },
    last: () => lastEvent,
    async flush() {
      if (lines.length === 0) return;
      const bytes = encoder.encode(`${lines.join('\n')}\n`);
      const seq = nextSeq;
      lines = [];
      await append(bytes);
      // Only bytes that reached storage count: a failed append leaves the cursor and digest where they were.
      digest.update(bytes);
      flushedBytes += bytes.length;
      flushedSeq = seq;
    },
    buffered: () => lines.length,
    cursor: () => ({ seq: flushedSeq, bytes: flushedBytes }),
    digest: () => digest.hex(),
  };
}

/** Parses trace bytes into events; a torn last line (a crash mid-append) is not an event. */
export function parseTrace(bytes: Uint8Array): TraceEvent[] {
  const text = new TextDecoder().decode(bytes);
  const events: TraceEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as TraceEvent);
    } catch {
      // skipped: only the last line can be torn, and resumption truncates it away
    }
  }
  return events;
}
