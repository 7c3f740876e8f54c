/**
 * The scenario model (api-contract.md, "Resources"): what an evaluation runs.
 * The JSON Schema that validates it lives in `core/schemas/scenario.ts`; AES v1.4 documents are normalised
 * into this shape on load by `core/aes.ts`.
 */

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

export interface ScenarioTask {
  id: string;
  input: string;
  expected?: Expected;
  metrics: MetricRef[];
  /** The topology agent that performs this task (multi-agent scenarios). */
  agent?: string;
  /** Tools the task may use. */
  tools?: string[];
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
  /** Where the scenario came from: `native`, `aes-1.4`, `spec-to-eval`, `llm`, `mutation`. */
  source?: string;
}
