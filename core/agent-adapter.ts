/**
 * The agent adapter extension point: how the engine talks to the agent under evaluation.
 * Built-ins (`scripted`, `http`, `openai`, `replay`) are plugins; teams add their own the same way.
 */
import { concatBytes } from '@noble/hashes/utils.js';
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
  /** Latency the adapter knows better than the engine's clock (a replayed trace's recorded latency). */
  latency_ms?: number;
}

/** Everything an adapter may use for one call. */
export interface AgentCallContext {
  run_id: string;
  scenario: Scenario;
  task: ScenarioTask;
  spec: AgentSpec;
  /** The run's earlier turns (inputs and answers) of this scenario or variant; read it during the call, not after. */
  history: readonly AgentTurn[];
  /** Outbound HTTP through the SSRF guard. */
  fetch: GuardedFetch;
  /** File reads through the jail (absent on runtimes without a file system). */
  files?: FileAccess;
  /** Operator environment, for `api_key_env` lookups. */
  env: Record<string, string | undefined>;
  /** Aborts at the per-call timeout or when the task is cancelled. */
  signal: AbortSignal;
  /** Reads a file named by the scenario through the file jail (`core/jail.ts`). */
  readFile(path: string): Promise<Uint8Array>;
  /** The mutated variant this call belongs to, when not the original scenario. */
  variant?: string;
}

/** What `AgentAdapter.check` may use to refuse a spec at submission (before a run is queued). */
export interface AgentCheckContext {
  readFile(path: string): Promise<Uint8Array>;
  env: Record<string, string | undefined>;
}

export interface AgentAdapter {
  /** The `agent.adapter` value that selects it. */
  name: string;
  description: string;
  /** JSON Schema of the adapter's options in `agent`. */
  options?: Record<string, unknown>;
  /**
   * In-process, deterministic and side-effect free: calling it again after a crash changes nothing, so the
   * engine may checkpoint after a batch of tasks instead of after every call.
   */
  idempotent?: boolean;
  /** Answers from a recording rather than a live agent: the engine offers metrics no `probe`. */
  recorded?: boolean;
  /** Refuses a spec at submission with a `Problem` (a missing file, an unset key variable). */
  check?(spec: AgentSpec, context: AgentCheckContext): Promise<void>;
  call(input: string, context: AgentCallContext): Promise<AgentReply>;
}

/** An agent that answered, but not usefully (an error status, a body that is not the expected JSON). */
export class AgentError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'AgentError';
  }
}

/**
 * Reads an agent's JSON answer, refusing error statuses and bodies over `maxBytes` (a hostile agent cannot
 * exhaust memory). Throws `AgentError`.
 */
export async function readAgentJson(response: Response, what: string, maxBytes = 4 * 1024 * 1024): Promise<unknown> {
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new AgentError(`${what} answered HTTP ${response.status}`, response.status);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > maxBytes) throw new AgentError(`${what} answered more than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  }
  const bytes = concatBytes(...chunks);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AgentError(`${what} answered with a body that is not JSON`);
  }
}
