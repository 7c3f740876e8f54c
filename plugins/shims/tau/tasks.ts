/**
 * τ-bench tasks as a scenario, scored as τ²-bench's evaluator scores them (tau2-bench `src/tau2/evaluator/
 * evaluator.py`, release a2c0247): each task of a split becomes a scenario task whose simulated user gets the
 * task's user scenario (as τ-bench renders it for its user simulator) and τ-bench's user-simulation guidelines,
 * answers the agent's greeting, and talks until it ends the conversation or a limit ends it (200 steps, 10 tool
 * errors: reward 0, the `conversation_end` metric). The task's `reward_basis` says what else judges it: `DB` its
 * gold actions (`expected_actions`, the whole world compared), `COMMUNICATE` its required outputs in an agent
 * message, `ACTION` each gold action among the agent's calls, `NL_ASSERTION` its natural-language assertions
 * (the `nl_assertions` metric, judged by the configured model). Nothing is stored: the scenario is built from
 * the data directory each time.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { OutcomeAssertion, MetricRef, Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Json, Shim } from '../../../core/shim.ts';
import { readTauDb, readTauGuidelines, readTauJson, readTauText, type TauDataDir } from './data.ts';
import type { TauDomain } from './define.ts';
import { replayGold } from './replay.ts';
import { tauRetailShim } from './retail.ts';
import { tauAirlineShim } from './airline.ts';
import { tauTelecomShim, type TelecomDb } from './telecom.ts';
import { tauTelecomUserShim } from './telecom-user.ts';
import { initializeTelecomWorlds, type TelecomInitCall } from './telecom-sync.ts';
import { replayTelecomTask } from './telecom-replay.ts';

/** τ-bench's agent greeting (orchestrator.py `DEFAULT_FIRST_AGENT_MESSAGE`): the agent speaks first. */
export const TAU_GREETING = 'Hi! How can I help you today?';
/** The release's run limits (tau2 `config.py`: `DEFAULT_MAX_STEPS`, `DEFAULT_MAX_ERRORS`). */
export const TAU_MAX_STEPS = 200;
export const TAU_MAX_ERRORS = 10;

/** The rules a τ-bench scenario applies, in one line (recorded in its description and printed by `aeh bench tau`). */
export const TAU_RULES = `τ²-bench's evaluation (tau2-bench a2c0247): the agent greets first; at most ${TAU_MAX_STEPS} steps and ${TAU_MAX_ERRORS} tool errors, a conversation cut by either scores 0; a task's reward is the product of its reward_basis (DB, COMMUNICATE, ACTION, NL_ASSERTION judged by the configured model)`;

/** The reward components τ²-bench multiplies (`RewardType`); `ENV_ASSERTION` (its env assertions, on either world) is only the telecom domain's. */
export type TauRewardType = 'DB' | 'ENV_ASSERTION' | 'ACTION' | 'COMMUNICATE' | 'NL_ASSERTION';
/** A task's basis when it names none (`EvaluationCriteria.reward_basis`'s default, original τ-bench's). */
const DEFAULT_BASIS: TauRewardType[] = ['DB', 'COMMUNICATE'];
const SUPPORTED = new Set<string>(['DB', 'ACTION', 'COMMUNICATE', 'NL_ASSERTION', 'ENV_ASSERTION']);

/** How to build the scenario. */
export interface TauScenarioOptions {
  /** A split of `split_tasks.json` (default `base`, the one τ-bench recommends for evaluating agents). */
  split?: string;
  /** The agent the scenario names (the caller usually replaces it with a registered agent). */
  agent?: Scenario['agent'];
  /** Where the user-simulation guidelines are found when the data directory has none (the bundled data). */
  guidelinesFrom?: TauDataDir;
  /** The release the data is (`tau2-bench a2c0247`), recorded in the scenario; absent: a data directory of the operator's. */
  release?: string;
}

interface TauAction { name: string; arguments: Record<string, unknown>; requestor?: string; compare_args?: string[] | null }
interface TauEnvAssertion { env_type: string; func_name: string; arguments?: Record<string, unknown>; assert_value?: boolean; message?: string | null }

/** A task as tasks.json holds it. */
export interface TauTask {
  id: string;
  user_scenario: { persona?: string | null; instructions: string | { domain: string; reason_for_call: string; known_info?: string | null; unknown_info?: string | null; task_instructions: string } };
  initial_state?: { initialization_actions?: TelecomInitCall[] | null } | null;
  evaluation_criteria?: { actions?: TauAction[] | null; env_assertions?: TauEnvAssertion[] | null; communicate_info?: string[] | null; nl_assertions?: string[] | null; reward_basis?: string[] | null } | null;
}

/**
 * Telecom's dual control (tau2-bench's `TelecomEnvironment`): the user's world is a second shim, its tools the
 * simulated user's; each task starts from the worlds its initialization actions make (the carrier's as those
 * actions on the data directory's database, the device as the whole initialization leaves it, both sides in order
 * with the environment's sync), and its gold actions and env assertions name either world by their requestor.
 */
interface DualControl { userShim: Shim; agentDb: TelecomDb }

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The scenario task id of a τ-bench task: `task_<id>`; an id a scenario cannot hold (telecom's
 * `[mms_issue]airplane_mode_on|…[PERSONA:Hard]`, up to 215 characters) with each run of other characters as `-`,
 * cut to fit with 8 hex digits of its SHA-256 so that two long ids stay apart.
 */
export function scenarioTaskId(id: string): string {
  const plain = `task_${id}`;
  if (TASK_ID.test(plain)) return plain;
  const slug = `task_${id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')}`;
  if (slug.length <= 128) return slug;
  const digest = Array.from(sha256(new TextEncoder().encode(id)).slice(0, 4), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${slug.slice(0, 119)}-${digest}`;
}

/** Python's `textwrap.indent(text, "\t")`: a tab before every line that is not blank. */
const indent = (text: string) => text.split(/(?<=\n)/).map((line) => (line.trim() ? `\t${line}` : line)).join('');

/** The user scenario as τ-bench's user simulator reads it (its `UserScenario` rendered as text). */
export function userInstructions(task: TauTask): string {
  const given = task.user_scenario.instructions;
  let text = given as string;
  if (typeof given !== 'string') {
    const lines = [`Domain: ${given.domain}`, `Reason for call:\n${indent(given.reason_for_call)}`];
    if (given.known_info != null) lines.push(`Known info:\n${indent(given.known_info)}`);
    if (given.unknown_info != null) lines.push(`Unknown info:\n${indent(given.unknown_info)}`);
    lines.push(`Task instructions:\n${indent(given.task_instructions)}`);
    text = lines.join('\n');
  }
  const persona = task.user_scenario.persona;
  return [...(persona != null ? ['Persona:', indent(persona)] : []), 'Instructions:', indent(text)].join('\n');
}

/** The arguments an ACTION check compares (τ²-bench's `Action.compare_args`: all when absent). */
function comparedArguments(action: TauAction): Record<string, unknown> {
  if (!action.compare_args) return action.arguments;
  return Object.fromEntries(Object.entries(action.arguments).filter(([name]) => action.compare_args!.includes(name)));
}

/** The task's reward basis, checked: a component the harness does not score is an error naming the task. */
export function rewardBasisOf(task: TauTask, domain: string): TauRewardType[] {
  const basis = (task.evaluation_criteria?.reward_basis ?? DEFAULT_BASIS) as TauRewardType[];
  // Env assertions are functions of telecom's toolkits; no other domain has any.
  const unsupported = basis.filter((type) => !SUPPORTED.has(type) || (type === 'ENV_ASSERTION' && domain !== 'telecom'));
  if (unsupported.length) throw new Error(`τ-bench ${domain} task ${task.id}: reward_basis ${unsupported.join(', ')} is not scored by the harness`);
  return basis;
}

/**
 * One τ-bench task as a scenario task of `shim`'s world (`db` its database), judged by its reward basis.
 * τ-bench's evaluator replays the gold actions and ignores those its tools refuse (a lookup with a wrong zip code
 * the user corrects later, say); a refused action changes nothing, so the converter leaves those out of
 * `expected_actions`, which gives the same expected world (docs/shims.md, "τ-bench domains").
 */
export async function tauTask(task: TauTask, shim: Shim, db: Json, domain: string, guidelines?: string, dual?: DualControl): Promise<ScenarioTask> {
  const criteria = task.evaluation_criteria ?? {};
  const basis = new Set(task.evaluation_criteria ? rewardBasisOf(task, domain) : []);
  const gold = criteria.actions ?? [];
  // A user's action is a tool of the user's world (telecom); τ²-bench's ACTION check matches either side's calls.
  const toolOf = (action: TauAction) => `${action.requestor === 'user' && dual ? dual.userShim.name : shim.name}.${action.name}`;
  const checks: OutcomeAssertion[] = [];
  if (basis.has('COMMUNICATE')) for (const expected of criteria.communicate_info ?? []) checks.push({ target: 'message', mode: 'contains', expected });
  if (basis.has('ACTION')) {
    for (const action of gold) checks.push({ target: 'tool_calls', where: { name: toolOf(action), arguments: comparedArguments(action) }, mode: 'exists' });
  }
  let expectedActions: ScenarioTask['expected_actions'];
  if (basis.has('DB')) {
    const outcomes = dual ? (await replayTelecomTask(shim, dual.userShim, dual.agentDb, task)).actions.map((outcome) => (outcome.startsWith('ok') ? 'ok' : outcome)) : (await replayGold(shim, db, gold)).actions;
    expectedActions = gold.filter((_, index) => outcomes[index] === 'ok').map((action) => ({ name: toolOf(action), arguments: action.arguments }));
  }
  const worldChecks = basis.has('ENV_ASSERTION') && dual ? (criteria.env_assertions ?? []).map((assertion) => ({
    shim: assertion.env_type === 'user' ? dual.userShim.name : shim.name, check: assertion.func_name, arguments: assertion.arguments ?? {}, expected: assertion.assert_value ?? true, ...(assertion.message ? { description: assertion.message } : {}),
  })) : [];
  const assertions = basis.has('NL_ASSERTION') ? criteria.nl_assertions ?? [] : [];
  const metrics: MetricRef[] = [
    ...(expectedActions || checks.length || worldChecks.length ? [{ id: 'state_match' }] : []),
    ...(assertions.length ? [{ id: 'nl_assertions', params: { assertions } }] : []),
    { id: 'conversation_end' },
  ];
  return {
    id: scenarioTaskId(task.id),
    // The agent greets first; the simulated user writes the first message.
    input: '',
    metrics,
    provenance: { user_simulator: 'import', ...(expectedActions ? { expected_actions: 'import' as const } : {}), ...(checks.length ? { expected_outcome: 'import' as const } : {}) },
    user_simulator: { instructions: userInstructions(task), greeting: TAU_GREETING, max_steps: TAU_MAX_STEPS, max_errors: TAU_MAX_ERRORS, ...(guidelines ? { guidelines } : {}) },
    ...(dual ? { initial_state: telecomStart(task, dual) } : {}),
    ...(worldChecks.length ? { world_checks: worldChecks } : {}),
    ...(expectedActions ? { expected_actions: expectedActions } : {}),
    ...(checks.length ? { expected_outcome: checks } : {}),
  };
}

/** Each world of a telecom task at its start: the carrier's as its initialization actions, the device as the whole initialization leaves it. */
function telecomStart(task: TauTask, dual: DualControl): Record<string, unknown> {
  const calls = task.initial_state?.initialization_actions ?? [];
  return { tau_telecom: { initialization_actions: calls.filter((call) => call.env_type === 'assistant') }, [dual.userShim.name]: initializeTelecomWorlds(dual.agentDb, calls).user };
}

/** The tool rounds per turn an `openai` or `http` agent gets on τ-bench's scenarios: each adapter's largest. */
export const TAU_AGENT_DEFAULTS = Object.freeze({ openai: Object.freeze({ max_tool_rounds: 16 }), http: Object.freeze({ max_tool_rounds: 32 }) });

/** What `tauScenario` built: the scenario, the domain policy and how it is scored. */
export interface TauScenario {
  scenario: Scenario;
  policy: string;
  /** Each task's reward basis, by scenario task id (`task_<id>`: scenarioTaskId). */
  rewardBasis: Record<string, TauRewardType[]>;
}

/**
 * Telecom's policy as its environment composes it (tau2-bench `domains/telecom/environment.py`, the manual
 * policy): `main_policy.md` and `tech_support_manual.md`, each in its tag.
 */
async function readTelecomPolicy(data: TauDataDir): Promise<string> {
  const [main, manual] = await Promise.all([readTauText(data, 'telecom', 'main_policy.md'), readTauText(data, 'telecom', 'tech_support_manual.md')]);
  return `<main_policy>\n${main}\n</main_policy>\n<tech_support_policy>\n${manual}\n</tech_support_policy>`;
}

/**
 * The scenario of a domain's split, run as written: the domain policy as the scenario's `instructions` (the
 * agent's system message), τ-bench's tool names (`tool_names: "bare"`), its user-simulation guidelines (the data
 * directory's `../user_simulator/simulation_guidelines.md`, else `guidelinesFrom`'s), and a verdict policy under
 * which every reward component is must-pass. Reads `tasks.json`, `split_tasks.json` and `policy.md` of
 * `<dir>/<domain>/`; the world's database comes from the same directory when the run starts.
 */
export async function tauScenario(domain: TauDomain, data: TauDataDir, options: TauScenarioOptions = {}): Promise<TauScenario> {
  const split = options.split ?? 'base';
  const telecom = domain === 'telecom';
  const [tasks, splits, policy, guidelines] = await Promise.all([
    readTauJson(data, domain, 'tasks.json'), readTauJson(data, domain, 'split_tasks.json'), telecom ? readTelecomPolicy(data) : readTauText(data, domain, 'policy.md'),
    readTauGuidelines(data, telecom).then((found) => found ?? (options.guidelinesFrom ? readTauGuidelines(options.guidelinesFrom, telecom) : undefined)),
  ]) as [TauTask[], Record<string, string[]>, string, string | undefined];
  const ids = splits[split];
  if (!Array.isArray(ids)) throw new Error(`τ-bench ${domain} has no split "${split}" (it has ${Object.keys(splits).join(', ')})`);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const db = await readTauDb(data, domain);
  const shim = (domain === 'retail' ? tauRetailShim() : domain === 'airline' ? tauAirlineShim() : tauTelecomShim()) as unknown as Shim;
  const dual = telecom ? { userShim: tauTelecomUserShim() as unknown as Shim, agentDb: (await shim.initialState(db, { config: {}, now: '' })) as TelecomDb } : undefined;
  const chosen = ids.map((id) => {
    const task = byId.get(id);
    if (!task) throw new Error(`τ-bench ${domain}: split "${split}" names task ${id}, which tasks.json does not hold`);
    return task;
  });
  const rewardBasis = Object.fromEntries(chosen.map((task) => [scenarioTaskId(task.id), task.evaluation_criteria ? rewardBasisOf(task, domain) : []]));
  const scenario: Scenario = {
    id: `tau-bench-${domain}-${split}`,
    title: `τ-bench ${domain} (${split} split, ${ids.length} tasks)`,
    description: `The ${domain} domain of τ-bench (${options.release ?? 'data from a τ-bench data directory'}), ${split} split. Rules: ${TAU_RULES}.`,
    industry: domain === 'retail' ? 'retail' : domain === 'airline' ? 'travel' : 'telecom',
    use_case: 'customer_service',
    tags: ['tau-bench', domain, split, `split:${split}`, `data:${options.release ?? 'data directory'}`, 'rules:tau2-bench a2c0247'],
    policy_ref: `${options.release ?? 'τ-bench'} ${domain}/${telecom ? 'main_policy.md + tech_support_manual.md' : 'policy.md'}`,
    source: options.release ? `τ-bench ${options.release}` : 'τ-bench data directory',
    agent: options.agent ?? { adapter: 'scripted' },
    topology: [],
    conversation: 'per_task',
    // Run as written: the domain policy is what the agent is told, and the tools go by τ-bench's own names.
    instructions: policy,
    tool_names: 'bare',
    enabled_shims: [shim.name, ...(dual ? [dual.userShim.name] : [])],
    ...(dual ? { user_shims: [dual.userShim.name] } : {}),
    // τ-bench's reward is the product of its components: each one fails the task.
    verdict: { must_pass: ['declared', 'nl_assertions', 'conversation_end'] },
    // τ-bench bounds a conversation's steps (200), not an agent's tool calls in one turn: the adapters' own
    // per-turn bounds (8 by default) would end a turn τ-bench lets go on, so τ-bench's scenarios give them
    // their largest (TAU_AGENT_DEFAULTS; a spec that sets its own keeps it).
    agent_defaults: { openai: { ...TAU_AGENT_DEFAULTS.openai }, http: { ...TAU_AGENT_DEFAULTS.http } },
    tasks: await Promise.all(chosen.map((task) => tauTask(task, shim, db, domain, guidelines, dual))),
  };
  return { scenario, policy, rewardBasis };
}
