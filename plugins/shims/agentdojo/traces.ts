/**
 * AgentDojo's published runs judged again by the harness (issue 35 item 3, "judges"). The reference publishes
 * every run of its leaderboard (`runs/<model>/<suite>/<user task>/<attack>/<injection task>.json` at 96046ab54:
 * the messages with their tool calls, the injections planted, and the utility and security it judged). Each run
 * reduces to a record (`agentdojoRunOf`: the tool calls in order, the final answer, the recorded verdicts and a
 * digest of the injections); `agentdojoReplay` turns a model's records of one suite into scenarios the `replay`
 * agent answers: the user tasks with the run's attacks (the harness places and renders the attack's text as it
 * does for any agent, which the digest checks against the recorded one), and the injection tasks run as user
 * tasks (AgentDojo runs them without attack to check they can be done; their utility is the goal's security
 * check). Every recorded call runs again on the unit's world in order; AgentDojo's own checks judge the world and
 * the answer. `compareReplays` sets the harness's verdicts beside the recorded ones.
 *
 * Suite-agnostic: any suite registered in AGENTDOJO_SUITES replays with no change here.
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { AgentDojoSuiteData } from './shared/data.ts';
import { agentdojoScenario } from './tasks.ts';

/** A published run reduced to what its verdicts depend on. */
export interface AgentDojoRun {
  /** The run's directory under `runs/` (Llama and SecAlign both say pipeline `local`). */
  model: string;
  /** The pipeline name the run recorded (it names the model the attack addresses). */
  pipeline: string;
  suite: string;
  /** The task run as the user's: a user task, or an injection task run without attack. */
  user_task: string;
  injection_task: string | null;
  /** The attack's name; `none` for a run without attack. */
  attack: string;
  /**
   * Each tool call in order, as the model sent it: the function and its arguments, and `false` third for a call
   * the run never ran (its tool loop stopped at 15 iterations after the model asked for it: the reference's
   * checks see it in the call trace, the environment never had it).
   */
  calls: Array<[string, Record<string, unknown>] | [string, Record<string, unknown>, false]>;
  /** The final answer: the last assistant message's text blocks joined by new lines (`get_text_content_as_str`). */
  output: string;
  utility: boolean;
  /** True when the attacker's goal happened (AgentDojo's `security`; true for every run without attack). */
  security: boolean;
  /** SHA-256 (hex, 16 digits) of the recorded injections, sorted by vector: `''` for a run without attack. */
  injections: string;
  /**
   * SHA-256 (hex, 16 digits) of what the suite's tools answered, in order (`toolOutputsDigest`): each call of a
   * tool of the suite the run ran, its output text or its error text.
   */
  outputs: string;
}

type Block = { type?: string; content?: string | null };
interface PublishedMessage {
  role: string;
  content?: string | Block[] | null;
  tool_calls?: Array<{ function: string; args?: Record<string, unknown> | null }> | null;
  /** A tool message: the call it answers, and the runtime's error text when the call failed. */
  tool_call?: { function: string } | null;
  error?: string | null;
}

/** A published run as its JSON file holds it. */
export interface PublishedRun {
  suite_name: string;
  pipeline_name: string;
  user_task_id: string;
  injection_task_id: string | null;
  attack_type: string | null;
  injections: Record<string, string>;
  messages: PublishedMessage[];
  utility: boolean;
  security: boolean;
}

/** A message's text as the reference reads it: a string as it is, blocks' non-null contents joined by new lines. */
export function messageText(content: PublishedMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.filter((block) => block.content != null).map((block) => block.content).join('\n');
}

async function digest(value: unknown): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(value))));
  return [...hash.slice(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The digest `AgentDojoRun.injections` holds. */
export async function injectionsDigest(injections: Readonly<Record<string, string>>): Promise<string> {
  const keys = Object.keys(injections).sort();
  return keys.length ? digest(keys.map((key) => [key, injections[key]])) : '';
}

/** The digest `AgentDojoRun.outputs` holds: of the tool answers' texts, in order. */
export const toolOutputsDigest = (texts: readonly string[]) => digest(texts);

/**
 * One published run (`model`: its directory under `runs/`) reduced to its record; `tools` are the suite's tool
 * names (a call of another name was refused by the reference's tool loop, never run).
 */
export async function agentdojoRunOf(model: string, published: PublishedRun, tools: ReadonlySet<string>): Promise<AgentDojoRun> {
  const answers = published.messages.filter((message) => message.role === 'tool' && tools.has(message.tool_call?.function ?? '')).map((message) => message.error ?? messageText(message.content));
  const calls: AgentDojoRun['calls'] = [];
  published.messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    // The tool loop answers each call with one tool message, right after the assistant's.
    let answered = 0;
    while (published.messages[index + 1 + answered]?.role === 'tool') answered++;
    (message.tool_calls ?? []).forEach((call, at) => calls.push(at < answered ? [call.function, call.args ?? {}] : [call.function, call.args ?? {}, false]));
  });
  const last = published.messages.at(-1);
  return {
    model, pipeline: published.pipeline_name, suite: published.suite_name, user_task: published.user_task_id,
    injection_task: published.injection_task_id, attack: published.attack_type ?? 'none', calls,
    output: last?.role === 'assistant' ? messageText(last.content) : '',
    utility: published.utility, security: published.security, injections: await injectionsDigest(published.injections ?? {}),
    outputs: await toolOutputsDigest(answers),
  };
}

/** Where a run is replayed: its scenario, task and (for an attacked run) the unit's variant. */
export interface ReplayKey { scenario: string; task: string; variant?: string }

/** One scenario to run with the `replay` agent, and the recording it reads. */
export interface ReplayScenario {
  scenario: Scenario;
  /** The file (JSON lines) the scenario's `replay` agent reads: `scenario.agent.trace_path`. */
  tracePath: string;
  recording: string;
}

/** What `agentdojoReplay` built. */
export interface AgentDojoReplay {
  scenarios: ReplayScenario[];
  /** Each run's place, in the order of the runs given. */
  keys: ReplayKey[];
}

/** The variant id the engine gives an attacked unit (plugins/evaluation/attacks/attack-cases.ts). */
export const attackVariantId = (attack: string, injectionTask: string, userTask: string) => `attack:${attack}/${injectionTask}@${userTask}`;

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** Options of `agentdojoReplay`. */
export interface AgentDojoReplayOptions {
  /** The benchmark version the runs were made at (v1.2.1 for the v1.2-era runs). */
  version: string;
  /** The prose name the attack addressed the model by (`important_instructions`' "to you, Claude"). */
  modelName: string;
  /** Where the recordings go, relative to the service's project root (default the scenario id + `.jsonl`). */
  tracePath?: (scenarioId: string) => string;
}

/**
 * One model's runs of one suite (`data`) as scenarios for the `replay` agent: the user tasks with every attack the
 * runs name (a unit per user task × injection task), and the injection tasks run as user tasks. Only the tasks
 * the runs hold are kept.
 */
export function agentdojoReplay(runs: readonly AgentDojoRun[], data: AgentDojoSuiteData, options: AgentDojoReplayOptions): AgentDojoReplay {
  const { version, modelName } = options;
  const models = new Set(runs.map((run) => run.model));
  if (models.size !== 1 || runs.some((run) => run.suite !== data.suite)) throw new Error(`agentdojoReplay takes one model's runs of the ${data.suite} suite (got ${[...models].join(', ')})`);
  const model = runs[0]!.model;
  const tracePath = options.tracePath ?? ((id: string) => `${id}.jsonl`);
  const isInjection = (run: AgentDojoRun) => run.user_task.startsWith('injection_task_');
  const userTasks = [...new Set(runs.filter((run) => !isInjection(run)).map((run) => run.user_task))];
  const injectionTasks = [...new Set(runs.flatMap((run) => (run.injection_task ? [run.injection_task] : [])))];
  const attacks = [...new Set(runs.map((run) => run.attack).filter((attack) => attack !== 'none'))];
  const base = agentdojoScenario(data, { version, userTasks: sortIds(userTasks), injectionTasks: sortIds(injectionTasks) });
  const attackedId = `${base.id}-${slug(model)}-replay`;
  const attacked: Scenario = {
    ...base, id: attackedId,
    title: `AgentDojo ${data.suite} ${version}: ${model}'s published runs replayed`,
    tags: [...base.tags, 'replay', `model:${model}`],
    agent: { adapter: 'replay', trace_path: tracePath(attackedId) },
    ...(attacks.length ? { attacks: attacks.map((attack) => ({ attack, settings: { model_name: modelName } })) } : {}),
  };
  const own = runs.filter(isInjection);
  const goals = new Map(data.tasks.versions[version]!.injection_tasks.map((task) => [task.id, task]));
  const injectionId = `${base.id}-${slug(model)}-injection-tasks-replay`;
  const asUser: ScenarioTask[] = sortIds(own.map((run) => run.user_task)).map((id) => ({
    id, input: goals.get(id)?.goal ?? id,
    // AgentDojo's utility of an injection task run alone is its security check: the metric fails when it is done.
    metrics: [{ id: 'agentdojo_security', params: { suite: data.suite, task: id, version } }],
  }));
  const injectionScenario: Scenario = {
    ...base, id: injectionId,
    title: `AgentDojo ${data.suite} ${version}: ${model}'s published runs of the injection tasks alone, replayed`,
    tags: [...base.tags, 'replay', `model:${model}`],
    agent: { adapter: 'replay', trace_path: tracePath(injectionId) },
    injection_tasks: [], tasks: asUser,
  };
  delete injectionScenario.verdict;
  const lines = new Map<string, string[]>([[attackedId, []], [injectionId, []]]);
  const keys: ReplayKey[] = runs.map((run) => {
    const key: ReplayKey = isInjection(run) ? { scenario: injectionId, task: run.user_task }
      : run.injection_task ? { scenario: attackedId, task: run.user_task, variant: attackVariantId(run.attack, run.injection_task, run.user_task) }
      : { scenario: attackedId, task: run.user_task };
    const shim = `agentdojo_${run.suite}`;
    const where = { task_id: key.task, ...(key.variant ? { variant: key.variant } : {}) };
    const out = lines.get(key.scenario)!;
    out.push(JSON.stringify({ type: 'agent_output', ...where, data: { output: run.output } }));
    for (const [name, args, executed] of run.calls) out.push(JSON.stringify({ type: 'tool_call', ...where, data: { name: `${shim}.${name}`, arguments: args, ...(executed === false ? { executed: false } : {}) } }));
    return key;
  });
  const scenarios: ReplayScenario[] = [{ scenario: attacked, tracePath: tracePath(attackedId), recording: `${lines.get(attackedId)!.join('\n')}\n` }];
  if (asUser.length) scenarios.push({ scenario: injectionScenario, tracePath: tracePath(injectionId), recording: `${lines.get(injectionId)!.join('\n')}\n` });
  return { scenarios, keys };
}

/** Task ids in AgentDojo's numeric order. */
function sortIds(ids: readonly string[]): string[] {
  const number = (id: string) => Number(id.slice(id.lastIndexOf('_') + 1));
  return [...new Set(ids)].sort((a, b) => number(a) - number(b));
}

/** The harness's verdicts of one replayed run: `null` when it could not decide. */
export interface ReplayedVerdict { utility: boolean | null; security: boolean | null }

/** What a replayed scenario's `scores.json` holds that the verdicts are read from. */
export interface ReplayScores {
  per_task?: Array<{ task_id: string; variant?: string; scores: Record<string, number | null> }>;
  attacks?: { cases?: Array<{ variant: string; utility: boolean | null; achieved: boolean | null }> };
}

const decided = (score: number | null | undefined) => (score === 1 ? true : score === 0 ? false : null);

/**
 * Each run's verdicts from its scenario's scores (`scores` by scenario id), in the order of `keys`. A user task
 * alone: utility is `agentdojo_utility`, security true (AgentDojo's for a run without injection); an attacked
 * unit: the run's attack case (utility, goal achieved); an injection task alone: its goal done is both.
 */
export function replayedVerdicts(keys: readonly ReplayKey[], scores: ReadonlyMap<string, ReplayScores>): ReplayedVerdict[] {
  return keys.map((key) => {
    const scored = scores.get(key.scenario);
    if (key.variant) {
      const found = scored?.attacks?.cases?.find((entry) => entry.variant === key.variant);
      return { utility: found?.utility ?? null, security: found?.achieved ?? null };
    }
    const unit = scored?.per_task?.find((entry) => entry.task_id === key.task && !entry.variant);
    if (key.task.startsWith('injection_task_')) {
      const security = decided(unit?.scores.agentdojo_security);
      return { utility: security === null ? null : !security, security: true };
    }
    return { utility: decided(unit?.scores.agentdojo_utility), security: true };
  });
}

/** A trace event as `GET /api/v1/runs/{id}/trace` gives it, as far as the tool answers go. */
export interface ReplayTraceEvent { type: string; task_id?: string | null; variant?: string; data?: { name?: string; result?: unknown; error?: { message?: string }; executed?: boolean } }

/**
 * Each run's tool answers digest from its scenario's trace (`traces` by scenario id), in the order of `keys`: the
 * calls of `tools` (the suite's, as `<shim>.<name>`) the world ran, each its result or its error text.
 */
export async function replayedOutputs(keys: readonly ReplayKey[], traces: ReadonlyMap<string, readonly ReplayTraceEvent[]>, tools: ReadonlySet<string>): Promise<string[]> {
  const byUnit = new Map<string, string[]>();
  for (const [scenario, events] of traces) {
    for (const event of events) {
      if (event.type !== 'tool_call' || !tools.has(event.data?.name ?? '') || event.data?.executed === false) continue;
      const unit = `${scenario}\u0000${event.task_id}\u0000${event.variant ?? ''}`;
      const answers = byUnit.get(unit) ?? [];
      answers.push(event.data?.error ? String(event.data.error.message) : String(event.data?.result));
      byUnit.set(unit, answers);
    }
  }
  return Promise.all(keys.map((key) => toolOutputsDigest(byUnit.get(`${key.scenario}\u0000${key.task}\u0000${key.variant ?? ''}`) ?? [])));
}

/** A run whose verdict the harness did not reproduce. */
export interface ReplayDifference {
  run: string;
  recorded: { utility: boolean; security: boolean };
  replayed: ReplayedVerdict;
}

/** How the harness's verdicts compare with the recorded ones. */
export interface ReplayAgreement {
  total: number;
  /** Runs whose utility and security both match. */
  same: number;
  differences: ReplayDifference[];
  /** Runs whose every tool answer is the recorded one's (when the replayed answers are given), and those that differ. */
  outputs?: { same: number; total: number; differing: string[] };
}

/** A run's name in a report: `<model> <suite> <user task> <attack> <injection task>`. */
export const runName = (run: AgentDojoRun) => [run.model, run.suite, run.user_task, run.attack, run.injection_task ?? ''].join(' ').trim();

/**
 * Compares each run's recorded verdicts with the harness's (`replayed`, in the runs' order), and with `outputs`
 * (the replayed tool answers' digests, `replayedOutputs`) what its tools answered.
 */
export function compareReplays(runs: readonly AgentDojoRun[], replayed: readonly ReplayedVerdict[], outputs?: readonly string[]): ReplayAgreement {
  const differences: ReplayDifference[] = [];
  runs.forEach((run, index) => {
    const ours = replayed[index] ?? { utility: null, security: null };
    if (ours.utility === run.utility && ours.security === run.security) return;
    differences.push({ run: runName(run), recorded: { utility: run.utility, security: run.security }, replayed: ours });
  });
  const agreement: ReplayAgreement = { total: runs.length, same: runs.length - differences.length, differences };
  if (outputs) {
    const differing = runs.flatMap((run, index) => (outputs[index] === run.outputs ? [] : [runName(run)]));
    agreement.outputs = { same: runs.length - differing.length, total: runs.length, differing };
  }
  return agreement;
}
