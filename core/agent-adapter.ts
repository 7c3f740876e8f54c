/**
 * The agent adapter extension point: how the engine talks to the agent under evaluation.
 * Built-ins (`scripted`, `http`, `openai`, `replay`) are plugins; teams add their own the same way.
 */
import type { AgentSpec, Scenario, ScenarioTask } from './domain/scenario.ts';
import type { GuardedFetch } from './capabilities.ts';
import type { FileAccess } from './capabilities.ts';
import type { TokenUsage } from './domain/usage.ts';

export interface AgentTurn {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  task_id?: string;
}

export interface ToolCall {
  name: string;
  arguments?: unknown;
  result?: unknown;
  /**
   * True when the harness ran the call against the task's world (`AgentTools.call`): the trace has it already.
   * An adapter that runs calls must say so: a call naming a world tool without it is recorded `executed: false`.
   */
  executed?: boolean;
}

/** A tool the engine offers the agent: an action of a world shim the scenario enables (core/shim.ts). */
export interface AgentTool {
  /** `shim.action`, the name scenarios and traces use. */
  name: string;
  /** `shim__action`: the same tool under a name function-calling APIs accept (`^[a-zA-Z0-9_-]{1,64}$`). */
  function_name: string;
  description: string;
  /** JSON Schema (type `object`) of the arguments. */
  parameters: Record<string, unknown>;
}

/** What a tool call answered: its result, or the error the agent must handle. */
export type ToolOutcome = { result: unknown } | { error: { code: string; message: string } };

/**
 * The run's world as tools: calls run against the task's shims, and the engine records each call and each
 * state change in the trace as it happens, so an adapter only relays what the agent asks.
 */
export interface AgentTools {
  list: AgentTool[];
  /** True when `name` (either form) is one of `list`. */
  has(name: string): boolean;
  call(name: string, args: unknown): Promise<ToolOutcome>;
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
  /** The agent ends a multi-turn conversation with this answer. */
  end_conversation?: boolean;
  /** Tokens the call used, as the agent reported them (`usageOf` in core/domain/usage.ts); never estimated. */
  usage?: TokenUsage;
  /** The model that answered, when known: what a price table (`AEH_PRICES`) looks up. */
  model?: string;
  /**
   * The requests this call sent to the agent when more than one: a call with tool rounds asks the agent again
   * after each round (`http`, `openai`). Counted in the run's `usage.requests`; 1 when absent.
   */
  requests?: number;
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
  /**
   * The variables named in `AEH_AGENT_KEY_ENVS` (for `api_key_env` lookups), and nothing else: never the
   * service's environment (`agentEnvironment`). A listed variable that is unset is present as `undefined`.
   */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborts at the per-call timeout or when the task is cancelled. */
  signal: AbortSignal;
  /** Reads a file named by the scenario through the file jail (`core/guards/jail.ts`). */
  readFile(path: string): Promise<Uint8Array>;
  /** The mutated variant this call belongs to, when not the original scenario. */
  variant?: string;
  /** The attempt (0-based) this call belongs to, when the scenario asks for repeated trials. */
  trial?: number;
  /** The world's tools, when the scenario enables shims; adapters offer them and relay the agent's calls. */
  tools?: AgentTools;
  /**
   * The same world as a Model Context Protocol server (streamable HTTP), when the scenario enables shims: the
   * task's absolute endpoint and the run's bearer token, valid while the task runs (docs/shims.md "Over MCP").
   */
  mcp?: { url: string; token: string };
}

/** What `AgentAdapter.check` may use to refuse a spec at submission (before a run is queued). */
export interface AgentCheckContext {
  readFile(path: string): Promise<Uint8Array>;
  /** The allowed variables only, as in `AgentCallContext.env`. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Refuses an agent URL that no connection could ever be allowed to reach (400 `ssrf_blocked`, `errors[0].path`
   * is `field`): another scheme, credentials in the URL, a forbidden IP literal in any spelling, this service's
   * own port. Names are left to the connection-time guard, which resolves them.
   */
  checkUrl(url: unknown, field: string): void;
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
