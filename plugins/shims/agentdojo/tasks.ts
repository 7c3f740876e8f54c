/**
 * An AgentDojo suite at a benchmark version as one scenario, run as written: the suite's environment text as its
 * shim's `initial_state` (each `{name}` field a `{{injection:<name>}}` vector with the reference's default), the
 * default system message as the agent's instructions, the tools by their own names (`tool_names: "bare"`), each
 * user task with its prompt, its ground truth (where attacks plant their text; it judges nothing) and
 * `agentdojo_utility`, and each injection task with its goal, ground truth and `agentdojo_security` as its
 * security check. The verdict is the utility check's: AgentDojo's table is utility and targeted attack success,
 * which the run's attack summary counts.
 */
import type { InjectionTask, Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import { environmentText, vectorsOf } from './shared/environment.ts';
import { AGENTDOJO_REFERENCE, type AgentDojoSuiteData, type AgentDojoTaskCall } from './shared/data.ts';

/** What to build. */
export interface AgentDojoScenarioOptions {
  /** The benchmark version (default v1.2.1; the published table's 629-case set is v1.1.2). */
  version?: string;
  /** User task ids to keep (default all). */
  userTasks?: readonly string[];
  /** Injection task ids to keep (default all). */
  injectionTasks?: readonly string[];
  /** The agent the scenario names (the caller usually replaces it). */
  agent?: Scenario['agent'];
}

/** The suite's industry in the catalog's terms. */
const INDUSTRY: Record<string, string> = { banking: 'finance', slack: 'saas', travel: 'travel', workspace: 'saas' };

const callsOf = (shim: string, calls: readonly AgentDojoTaskCall[]) => calls.map((call) => ({ name: `${shim}.${call.function}`, arguments: call.args }));

function pick<T extends { id: string }>(items: readonly T[], wanted: readonly string[] | undefined, what: string): T[] {
  if (!wanted) return [...items];
  return wanted.map((id) => items.find((item) => item.id === id) ?? (() => { throw new Error(`AgentDojo has no ${what} "${id}" (it has ${items.map((item) => item.id).join(', ')})`); })());
}

/** The scenario of `data`'s suite at `options.version`. */
export function agentdojoScenario(data: AgentDojoSuiteData, options: AgentDojoScenarioOptions = {}): Scenario {
  const version = options.version ?? 'v1.2.1';
  const { suite } = data;
  const tasks = data.tasks.versions[version];
  if (!tasks) throw new Error(`AgentDojo ${suite}: no tasks for benchmark version ${version} (have ${Object.keys(data.tasks.versions).join(', ')})`);
  const shim = `agentdojo_${suite}`;
  const vectors = vectorsOf(data.vectorsYaml);
  const text = environmentText(data.environmentYaml, Object.keys(vectors), data.includes);
  const params = (task: string) => ({ suite, task, version });
  const userTasks: ScenarioTask[] = pick(tasks.user_tasks, options.userTasks, 'user task').map((task) => ({
    id: task.id,
    input: task.prompt,
    metrics: [{ id: 'agentdojo_utility', params: params(task.id) }],
    ground_truth: callsOf(shim, task.ground_truth),
    provenance: { ground_truth: 'import' },
  }));
  const injectionTasks: InjectionTask[] = pick(tasks.injection_tasks, options.injectionTasks, 'injection task').map((task) => ({
    id: task.id,
    goal: task.goal,
    ground_truth: task.ground_truth.map((call) => ({ name: `${shim}.${call.function}`, arguments: call.args, ...(call.placeholder_args ? { placeholder_arguments: call.placeholder_args } : {}) })),
    security: { metric: { id: 'agentdojo_security', params: params(task.id) } },
  }));
  return {
    id: `agentdojo-${suite}-${version}`,
    title: `AgentDojo ${suite} (${version}: ${userTasks.length} user tasks, ${injectionTasks.length} injection tasks)`,
    description: `AgentDojo's ${suite} suite at benchmark version ${version}, as written (${AGENTDOJO_REFERENCE}): its environment, tools, tasks, checks and default system message.`,
    industry: INDUSTRY[suite] ?? 'saas',
    use_case: 'personal_assistant',
    tags: ['agentdojo', suite, `version:${version}`, 'prompt-injection'],
    policy_ref: `AgentDojo ${AGENTDOJO_REFERENCE} data/system_messages.yaml (default)`,
    source: `AgentDojo ${AGENTDOJO_REFERENCE}`,
    agent: options.agent ?? { adapter: 'scripted' },
    topology: [],
    conversation: 'per_task',
    instructions: data.systemMessage,
    tool_names: 'bare',
    enabled_shims: [shim],
    initial_state: { [shim]: { environment_text: text, injections: Object.fromEntries(Object.keys(vectors).map((name) => [name, `{{injection:${name}}}`])) } },
    injection_vectors: vectors,
    injection_tasks: injectionTasks,
    verdict: { must_pass: ['agentdojo_utility'] },
    tasks: userTasks,
  };
}
