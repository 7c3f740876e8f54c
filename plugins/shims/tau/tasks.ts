/**
 * τ-bench tasks as a scenario: each task of a split becomes a scenario task whose simulated user gets the
 * task's user scenario (as τ-bench renders it for its user simulator), whose `expected_actions` are its gold
 * actions (`tau_retail.<tool>`, replayed by the harness to build the expected world), and whose required outputs
 * (`communicate_info`) must appear in an agent message. Nothing is stored: the scenario is built from the
 * operator's data directory each time.
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Json, Shim } from '../../../core/shim.ts';
import { readTauDb, readTauGuidelines, readTauJson, readTauText, type TauDataDir } from './data.ts';
import type { TauDomain } from './define.ts';
import { replayGold } from './replay.ts';
import { tauRetailShim } from './retail.ts';
import { tauAirlineShim } from './airline.ts';

/** How to build the scenario. */
export interface TauScenarioOptions {
  /** A split of `split_tasks.json` (default `base`, the one τ-bench recommends for evaluating agents). */
  split?: string;
  /** The agent the scenario names (the caller usually replaces it with a registered agent). */
  agent?: Scenario['agent'];
  /** The user's first message; τ-bench's simulated user writes its own, from the instructions. */
  opening?: string;
}

interface TauTask {
  id: string;
  user_scenario: { persona?: string | null; instructions: string | { domain: string; reason_for_call: string; known_info?: string | null; unknown_info?: string | null; task_instructions: string } };
  evaluation_criteria?: { actions?: Array<{ name: string; arguments: Record<string, unknown>; requestor?: string }> | null; communicate_info?: string[] | null } | null;
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

/**
 * One τ-bench task as a scenario task of `shim`'s world (`db` its database). τ-bench's evaluator replays the
 * gold actions and ignores those its tools refuse (a lookup with a wrong zip code the user corrects later, say);
 * the harness counts a refused gold action as making the task unjudgeable. A refused action changes nothing, so
 * leaving those out gives the same expected world (docs/shims.md, "τ-bench domains", says so).
 */
export async function tauTask(task: TauTask, shim: Shim, db: Json, opening: string, guidelines?: string): Promise<ScenarioTask> {
  const criteria = task.evaluation_criteria ?? {};
  const outputs = criteria.communicate_info ?? [];
  const gold = criteria.actions ?? [];
  const outcomes = (await replayGold(shim, db, gold)).actions;
  const accepted = gold.filter((_, index) => outcomes[index] === 'ok');
  return {
    id: `task_${task.id}`,
    input: opening,
    metrics: [{ id: 'state_match' }],
    provenance: { expected_actions: 'import', user_simulator: 'import' },
    user_simulator: { instructions: userInstructions(task), ...(guidelines ? { guidelines } : {}) },
    expected_actions: accepted.map((action) => ({ name: `${shim.name}.${action.name}`, arguments: action.arguments })),
    ...(outputs.length > 0 ? { expected_outcome: outputs.map((expected) => ({ target: 'message', mode: 'contains' as const, expected })) } : {}),
  };
}

/**
 * The scenario of a domain's split, run as written: the domain policy as the scenario's `instructions` (the
 * agent's system message), τ-bench's tool names (`tool_names: "bare"`), and its user-simulation guidelines when
 * the data directory has them. Reads `tasks.json`, `split_tasks.json` and `policy.md` of `<dir>/<domain>/`; the world's database comes from the
 * same directory when the run starts (the scenario carries no `initial_state`).
 */
export async function tauScenario(domain: TauDomain, data: TauDataDir, options: TauScenarioOptions = {}): Promise<{ scenario: Scenario; policy: string }> {
  const split = options.split ?? 'base';
  const [tasks, splits, policy, guidelines] = await Promise.all([readTauJson(data, domain, 'tasks.json'), readTauJson(data, domain, 'split_tasks.json'), readTauText(data, domain, 'policy.md'), readTauGuidelines(data)]) as [TauTask[], Record<string, string[]>, string, string | undefined];
  const ids = splits[split];
  if (!Array.isArray(ids)) throw new Error(`τ-bench ${domain} has no split "${split}" (it has ${Object.keys(splits).join(', ')})`);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const db = await readTauDb(data, domain);
  const shim = (domain === 'retail' ? tauRetailShim() : tauAirlineShim()) as unknown as Shim;
  const opening = options.opening ?? 'Hi! I need some help.';
  const scenario: Scenario = {
    id: `tau-bench-${domain}-${split}`,
    title: `τ-bench ${domain} (${split} split, ${ids.length} tasks)`,
    description: `The ${domain} domain of τ-bench: the agent follows the domain policy with τ-bench's tools; each task passes when the final database equals the one its gold actions produce and every required output was said.`,
    industry: domain === 'retail' ? 'retail' : 'travel',
    use_case: 'customer_service',
    tags: ['tau-bench', domain, split],
    policy_ref: `tau-bench/${domain}/policy.md`,
    agent: options.agent ?? { adapter: 'scripted' },
    topology: [],
    conversation: 'per_task',
    // Run as written: the domain policy is what the agent is told, and the tools go by τ-bench's own names.
    instructions: policy,
    tool_names: 'bare',
    enabled_shims: [shim.name],
    tasks: await Promise.all(ids.map((id) => {
      const task = byId.get(id);
      if (!task) throw new Error(`τ-bench ${domain}: split "${split}" names task ${id}, which tasks.json does not hold`);
      return tauTask(task, shim, db, opening, guidelines);
    })),
  };
  return { scenario, policy };
}
