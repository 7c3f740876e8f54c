/**
 * What one run holds while it executes, in a file of its own so that the runner and the steps it calls (units,
 * concurrent units, finishing) all import it without importing each other.
 */
import type { AgentAdapter } from '../../../core/agent-adapter.ts';
import type { TaskRecord } from '../../../core/domain/runs.ts';
import type { TraceWriter } from '../../../core/domain/trace.ts';
import type { Engine } from '../engine.ts';
import type { HandoffState } from './handoff.ts';
import type { RunPlan } from '../submission/plan.ts';
import type { RunState } from './run-state.ts';

/** Everything one run needs while it executes. */
export interface RunContext {
  engine: Engine;
  task: TaskRecord;
  plan: RunPlan;
  adapter: AgentAdapter;
  state: RunState;
  writer: TraceWriter;
  signal: AbortSignal;
  scenarioDigest: string;
  total: number;
  step: number;
  /** The unit the token says runs next, and whether units remain (`running`) or only results (`finishing`). */
  from: number;
  phase: HandoffState['phase'];
  /** The task record's `running` write made while the first unit is still in flight, which checkpoints wait for. */
  marking?: Promise<void>;
}
