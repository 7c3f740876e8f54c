/**
 * The agent adapter extension point: how the engine talks to the agent under evaluation.
 * Built-ins (`scripted`, `http`, `openai`, `replay`) are plugins; teams add their own the same way.
 */
import type { AgentSpec, Scenario, ScenarioTask } from './scenario.ts';
import type { GuardedFetch } from './runtime.ts';
import type { FileAccess } from './runtime.ts';

export interface AgentTurn {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  task_id?: string;
}

export interface ToolCall {
  name: string;
  arguments?: unknown;
  result?: unknown;
}

/** What the agent answered for one task. */
export interface AgentReply {
  output: string;
  tool_calls?: ToolCall[];
  /** Messages the agent passed to other topology agents. */
  handoffs?: Array<{ from: string; to: string; channel?: string; content: string }>;
  /** The agent's own signature over its output (becomes an `Agent` provenance entry). */
  signature?: { identity: string; jws: string };
}

/** Everything an adapter may use for one call. */
export interface AgentCallContext {
  run_id: string;
  scenario: Scenario;
  task: ScenarioTask;
  spec: AgentSpec;
  history: AgentTurn[];
  /** Outbound HTTP through the SSRF guard. */
  fetch: GuardedFetch;
  /** File reads through the jail (absent on runtimes without a file system). */
  files?: FileAccess;
  /** Operator environment, for `api_key_env` lookups. */
  env: Record<string, string | undefined>;
  /** Aborts at the per-call timeout or when the task is cancelled. */
  signal: AbortSignal;
}

export interface AgentAdapter {
  /** The `agent.adapter` value that selects it. */
  name: string;
  description: string;
  /** JSON Schema of the adapter's options in `agent`. */
  options?: Record<string, unknown>;
  call(input: string, context: AgentCallContext): Promise<AgentReply>;
}
