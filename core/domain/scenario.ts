/**
 * The scenario model (api-contract.md, "Resources"): what an evaluation runs.
 * The JSON Schema that validates it lives in `core/domain/schemas/scenario.ts`; AES v1.4 documents are normalised
 * into this shape on load by `plugins/aes`.
 */

import type { VerdictPolicyInput } from './verdict-policy.ts';

/** The seven scoring dimensions of the Weighted Severity Model. */
export const DIMENSIONS = ['safety', 'security', 'reliability', 'fairness', 'explainability', 'privacy', 'resilience'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Which agent adapter answers the tasks, with that adapter's options. */
export interface AgentSpec {
  adapter: string;
  [option: string]: unknown;
}

/** One agent of a multi-agent topology and the channels it writes to and reads from. */
export interface TopologyNode {
  agent: string;
  writes: string[];
  reads: string[];
}

/** What a task's output is checked against by `task_success`; `rubric` needs an LLM judge. */
export interface Expected {
  equals?: string;
  contains?: string;
  regex?: string;
  json_schema?: Record<string, unknown>;
  rubric?: string;
}

/** A metric applied to a task, with its parameters. */
export interface MetricRef {
  id: string;
  params?: Record<string, unknown>;
  /** Relative weight within the metric's dimension (default 1). */
  weight?: number;
}

/**
 * What must hold once a task is over, in the AES `expected_outcome` shape: of the agent's messages (`message`:
 * any answer of the conversation; `last_message`: the last), of a shim's final state (`shim:<name>`), or of the
 * `tool_calls` it made. `property` is a JSON path; over several selected
 * values the assertion holds when it holds for one (`count`, `exists`, `absent` look at how many).
 */
export interface OutcomeAssertion {
  target: string;
  property?: string;
  expected?: unknown;
  mode?: 'equals' | 'exact' | 'contains' | 'not_contains' | 'regex' | 'not_regex' | 'exists' | 'absent' | 'gte' | 'lte' | 'count' | 'numerical_tolerance';
  tolerance?: number;
  /** Keep only the array elements that contain these members (tool calls by name, say). */
  where?: Record<string, unknown>;
  description?: string;
}

/**
 * A tool call of a task's gold solution (`shim.action` and its arguments), replayed to build the expected world.
 * An argument may be a matcher (`{"$regex": "…"}`, `{"$in": […]}`, `{"$any": true}`: gold-matchers.ts), met by
 * the agent's own call of the tool, whose values the replay then takes.
 */
export interface ExpectedAction {
  name: string;
  arguments?: Record<string, unknown>;
}

/** A further user turn of a task's conversation, with what must hold once the agent answered it. */
export interface ConversationTurn {
  input: string;
  expected_outcome?: OutcomeAssertion[];
}

/**
 * A simulated user (needs the configured language-model provider): it follows `instructions` turn by turn until
 * its goal is met, the agent ends the conversation, or a limit is reached: `max_turns` user turns, `max_steps`
 * messages or `max_errors` failed tool calls (τ-bench's limits; the `conversation_end` metric fails a
 * conversation a limit ended).
 */
export interface UserSimulator {
  instructions: string;
  /** User turns before the conversation is cut (default 8; none when `max_steps` is given). */
  max_turns?: number;
  /**
   * Messages before the conversation is cut, counted as τ-bench's orchestrator counts steps: each user message
   * (the closing `###STOP###` too), each agent answer, and per tool round of the agent its call and the results.
   */
  max_steps?: number;
  /** Failed tool calls (the world refused them) before the conversation is cut (τ-bench: 10). */
  max_errors?: number;
  /**
   * The agent's opening line (τ-bench's "Hi! How can I help you today?"): the conversation opens with it as the
   * agent's turn and the simulated user writes the first message, so the task's `input` must be empty.
   */
  greeting?: string;
  /**
   * A benchmark's own user-simulation guidelines (τ-bench's): the simulator's prompt is then these guidelines and
   * the instructions as `<scenario>`, as the benchmark writes it; its end tokens (`###STOP###`, `###TRANSFER###`,
   * `###OUT-OF-SCOPE###`) end the conversation.
   */
  guidelines?: string;
}

export interface ScenarioTask {
  id: string;
  input: string;
  expected?: Expected;
  metrics: MetricRef[];
  /** The topology agent that performs this task (multi-agent scenarios). */
  agent?: string;
  /** Tools the task may use (`shim.action`); absent: every action of the enabled shims. */
  tools?: string[];
  /** Tools the agent must call (`shim.action`), checked by `tool_use`. */
  required_tools?: string[];
  /** Tools the agent must never call, checked by `tool_use`. */
  forbidden_tools?: string[];
  /** What must hold at the end of the task, checked by `state_match`. */
  expected_outcome?: OutcomeAssertion[];
  /**
   * The gold solution's tool calls: the harness replays them on a fresh copy of the task's initial world, and
   * `state_match` compares the agent's final world with that one as a whole (every enabled shim). `[]` means the
   * right answer changes nothing; absent, the task has no gold.
   */
  expected_actions?: ExpectedAction[];
  /**
   * A reference solution that judges nothing (AgentDojo's ground truth): the calls an attack's placement replays
   * to find the injection vectors the task reads. Absent, `expected_actions` serve.
   */
  ground_truth?: ExpectedAction[];
  /** Parts of the world this task's gold comparison also leaves out (added to the scenario's `ignore_paths`). */
  ignore_paths?: string[];
  /** Further user turns after `input`: the task is a conversation (checks may follow any turn). */
  turns?: ConversationTurn[];
  /** A simulated user continues the conversation after `input` (instead of scripted `turns`). */
  user_simulator?: UserSimulator;
  /** Who wrote a field when not the author (`{"expected": "llm"}` from spec-to-eval's enrichment). */
  provenance?: Record<string, 'llm' | 'author' | 'import'>;
}

/**
 * A place in the scenario's world where an attacker's text may be planted (AgentDojo's injection vectors): the
 * `initial_state` strings hold `{{injection:<name>}}`, which renders `default` when no attack runs.
 */
export interface InjectionVector {
  default: string;
  description?: string;
}

/**
 * How to tell an injection task's goal happened (AgentDojo's `security`): every given part must hold —
 * `expected_outcome` assertions (the world after, the tool calls, the answer) and, with `egress`, one of the
 * values sent out of the world through an egress call. `match: "any"` takes one part that holds.
 */
export interface InjectionSecurity {
  expected_outcome?: OutcomeAssertion[];
  egress?: { values: string[] };
  /** A registered metric that fails when the goal happened (a benchmark's own security check, as code). */
  metric?: MetricRef;
  match?: 'all' | 'any';
}

/** What an attacker wants the agent to do instead (AgentDojo's injection task). */
export interface InjectionTask {
  id: string;
  goal: string;
  /** The attacker's own solution (the `tool_knowledge` attack spells it out); `placeholder_arguments` as shown to the agent. */
  ground_truth?: Array<ExpectedAction & { placeholder_arguments?: Record<string, unknown> }>;
  security: InjectionSecurity;
}

/** One attack a run makes (plugins/attacks): on every injection task, or those named; with its settings. */
export interface AttackRequest {
  attack: string;
  injection_tasks?: string[];
  settings?: Record<string, unknown>;
}

export interface Scenario {
  id: string;
  title: string;
  description?: string;
  industry: string;
  use_case: string;
  tags: string[];
  policy_ref: string;
  agent: AgentSpec;
  topology: TopologyNode[];
  tasks: ScenarioTask[];
  /**
   * What the agent is told before the conversation (a domain policy, τ-bench's wiki): the `openai` adapter's
   * system message, the `http` request's `instructions`, the MCP server's instructions.
   */
  instructions?: string;
  /**
   * How tools are offered to the agent: `prefixed` (default) as `shim.action` / `shim__action`; `bare` as the
   * action's name alone, as a benchmark names its tools (refused when two enabled shims share an action name).
   * Scenarios and traces always say `shim.action`.
   */
  tool_names?: 'prefixed' | 'bare';
  /** The world shims this scenario's agent works on (their actions are offered as tools). */
  enabled_shims?: string[];
  /** Each enabled shim's starting state, by shim name (each task starts from it). */
  initial_state?: Record<string, unknown>;
  /**
   * Parts of the world every gold comparison (`expected_actions`) leaves out, besides each shim's incidental
   * state: RFC 6901 pointers rooted at the world, a `*` segment for any member or element.
   */
  ignore_paths?: string[];
  /**
   * Per-shim configuration, by shim name: an object, or the name of a stored configuration
   * (`/api/v1/shims/configs`), which submission replaces with its content.
   */
  shim_config?: Record<string, Record<string, unknown> | string>;
  /**
   * `shared` (default): every task continues one conversation (the agent gets the earlier turns) and tasks run
   * in order. `per_task`: each task is its own conversation, so independent tasks run side by side.
   */
  conversation?: 'shared' | 'per_task';
  /**
   * Each task is attempted this many times, each attempt with its own world and conversation; the run reports
   * pass@k and pass^k, and the index scores every metric by its worst attempt (pass^k for pass/fail metrics).
   */
  trials?: number;
  /** With `conversation: "per_task"`, how many tasks of this run may be in flight (capped by `AEH_RUN_CONCURRENCY`). */
  concurrency?: number;
  /** How the verdict is decided: which failures fail the run whatever the index (core/domain/verdict.ts). */
  verdict?: VerdictPolicyInput;
  /** Where attacker text may be planted: `{{injection:<name>}}` in `initial_state` strings (core/domain/injection.ts). */
  injection_vectors?: Record<string, InjectionVector>;
  /** What attackers want instead of the user's task, and how to tell it happened. */
  injection_tasks?: InjectionTask[];
  /** The attacks a run of this scenario makes unless the request names its own. */
  attacks?: AttackRequest[];
  /** Where the scenario came from: `native`, `aes-1.4`, `spec-to-eval`, `llm`, `mutation`. */
  source?: string;
}
