/**
 * A run's attack cases (issue 35): for each user task, each requested attack and each of its injection tasks
 * (one case per user task for a denial-of-service attack), a variant of that one task whose world holds the
 * attack's text in the vectors the task's gold reads (placement.ts) and whose unit is judged also by
 * `injection_success` (plan.ts `variantScenario`). Everything a request could get wrong is refused here, before
 * anything is queued: a 400 naming the field (an unknown attack or injection task, bad settings, a scenario
 * without vectors or injection tasks, an attack that needs ground truth the injection task lacks).
 */
import { Problem, type FieldError } from '../../../core/problems.ts';
import { check, describeErrors } from '../../../core/validate.ts';
import type { Attack, AttackContext } from '../../../core/attack.ts';
import type { AttackRequest, InjectionTask, Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Shim } from '../../../core/shim.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';
import { ATTACK_VARIANT_PREFIX, type PlannedVariant } from '../submission/plan.ts';
import { injectionCandidates } from './placement.ts';

/** The settings every attack reads besides its own. */
const COMMON_SETTINGS = ['user_name', 'model_name'] as const;

/** An attack request checked: the attack, its injection tasks (none for denial of service), its settings. */
interface ResolvedAttack {
  request: AttackRequest;
  attack: Attack;
  injectionTasks: Array<InjectionTask | undefined>;
}

/** The attacks a run makes (the request's, else the scenario's) and where a refusal points. */
export function attackRequestsOf(scenario: Scenario, requested: AttackRequest[] | undefined): { requests: AttackRequest[]; at: string } {
  return requested !== undefined ? { requests: requested, at: '/attacks' } : { requests: scenario.attacks ?? [], at: '/scenario/attacks' };
}

function resolve(attacks: Registry<Attack>, scenario: Scenario, requests: AttackRequest[], at: string): ResolvedAttack[] {
  const errors: FieldError[] = [];
  const vectors = Object.keys(scenario.injection_vectors ?? {});
  const tasks = scenario.injection_tasks ?? [];
  if (requests.length && vectors.length === 0) errors.push({ path: at, message: 'the scenario declares no injection_vectors: an attack has nowhere to plant its text ({{injection:<name>}} in initial_state, docs/shims.md)' });
  const resolved: ResolvedAttack[] = [];
  requests.forEach((request, index) => {
    const path = `${at}/${index}`;
    const attack = attacks.get(request.attack);
    if (!attack) {
      errors.push({ path: `${path}/attack`, message: `unknown attack "${request.attack}"; known: ${attacks.names().join(', ') || 'none'}` });
      return;
    }
    const { user_name: userName, model_name: modelName, ...own } = request.settings ?? {};
    for (const [key, value] of Object.entries({ user_name: userName, model_name: modelName })) {
      if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > 200)) errors.push({ path: `${path}/settings/${key}`, message: 'must be a string of 1 to 200 characters' });
    }
    if (attack.settings) errors.push(...check(attack.settings, own, `${path}/settings`));
    else for (const key of Object.keys(own)) errors.push({ path: `${path}/settings/${key}`, message: `attack "${attack.name}" takes no setting "${key}" (it reads ${COMMON_SETTINGS.join(', ')})` });
    if (attack.dos) {
      if (request.injection_tasks) errors.push({ path: `${path}/injection_tasks`, message: `"${attack.name}" is a denial-of-service attack: it has no injection task` });
      resolved.push({ request, attack, injectionTasks: [undefined] });
      return;
    }
    if (tasks.length === 0) {
      errors.push({ path: `${path}/attack`, message: 'the scenario declares no injection_tasks: the attack has no goal to plant' });
      return;
    }
    const chosen: InjectionTask[] = [];
    for (const [position, id] of (request.injection_tasks ?? tasks.map((task) => task.id)).entries()) {
      const task = tasks.find((candidate) => candidate.id === id);
      if (!task) errors.push({ path: `${path}/injection_tasks/${position}`, message: `unknown injection task "${id}"; the scenario declares ${tasks.map((candidate) => candidate.id).join(', ')}` });
      // An empty ground truth is one stated (AgentDojo's answer-only injection tasks): the attack lists no call.
      else if (attack.needsGroundTruth && task.ground_truth === undefined) errors.push({ path: `${path}/injection_tasks/${position}`, message: `"${attack.name}" spells out the injection task's ground_truth, and "${id}" has none` });
      else chosen.push(task);
    }
    resolved.push({ request, attack, injectionTasks: chosen });
  });
  if (errors.length) throw new Problem('validation_failed', { detail: `the attacks cannot run: ${describeErrors(errors)}`, errors });
  return resolved;
}

/** How many attack cases the requests make at most (before placement drops tasks no attack can reach). */
export function attackCaseCount(attacks: Registry<Attack>, scenario: Scenario, requested: AttackRequest[] | undefined): number {
  const { requests, at } = attackRequestsOf(scenario, requested);
  if (requests.length === 0) return 0;
  return resolve(attacks, scenario, requests, at).reduce((sum, entry) => sum + entry.injectionTasks.length, 0) * scenario.tasks.length;
}

/** The tools `task` is offered (`shim.action`), in the world's order. */
function toolsOf(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask): string[] {
  const all = (scenario.enabled_shims ?? []).flatMap((name) => (shims.get(name)?.actions ?? []).map((action) => `${name}.${action.name}`));
  return task.tools?.length ? all.filter((tool) => task.tools!.includes(tool)) : all;
}

/** What `buildAttackCases` needs. */
export interface AttackCasesOptions {
  attacks: Registry<Attack>;
  shims: Registry<Shim>;
  scenario: Scenario;
  requested?: AttackRequest[];
  /** The run's clock, for the placement replay. */
  now: string;
  execution?: ShimExecution;
}

/** The attack cases of a run, and the user tasks no attack can reach (their gold reads no vector). */
export async function buildAttackCases(options: AttackCasesOptions): Promise<{ variants: PlannedVariant[]; notInjectable: string[] }> {
  const { scenario, shims } = options;
  const { requests, at } = attackRequestsOf(scenario, options.requested);
  if (requests.length === 0) return { variants: [], notInjectable: [] };
  const resolved = resolve(options.attacks, scenario, requests, at);
  const variants: PlannedVariant[] = [];
  const notInjectable: string[] = [];
  const seen = new Set<string>();
  const agentModel = typeof scenario.agent.model === 'string' ? scenario.agent.model : undefined;
  for (const task of scenario.tasks) {
    const vectors = await injectionCandidates(shims, scenario, task, options.now, options.execution);
    if (vectors.length === 0) {
      notInjectable.push(task.id);
      continue;
    }
    const tools = toolsOf(shims, scenario, task);
    for (const [index, { request, attack, injectionTasks }] of resolved.entries()) {
      const settings = request.settings ?? {};
      for (const injectionTask of injectionTasks) {
        const injections: Record<string, string> = {};
        for (const vector of vectors) {
          const context: AttackContext = {
            goal: injectionTask?.goal ?? '', ...(injectionTask ? { injectionTask } : {}), userTask: { id: task.id, prompt: task.input },
            ...(typeof settings.user_name === 'string' ? { userName: settings.user_name } : {}), ...(typeof settings.model_name === 'string' ? { modelName: settings.model_name } : {}),
            ...(agentModel ? { agentModel } : {}), tools, vector, settings,
            offeredName: (name) => (scenario.tool_names === 'bare' ? name.slice(name.indexOf('.') + 1) : name),
          };
          const text = attack.render(context);
          if (typeof text !== 'string') throw new Error(`attack "${attack.name}" rendered ${typeof text}, not a string`);
          injections[vector] = text;
        }
        let id = `${ATTACK_VARIANT_PREFIX}${attack.name}/${injectionTask?.id ?? 'dos'}@${task.id}`;
        if (seen.has(id)) id = `${id}#${index}`;
        seen.add(id);
        variants.push({
          variant_id: id, types: [], seed: 0, changes: [], task_id: task.id,
          attack: { attack: attack.name, ...(injectionTask ? { injection_task: injectionTask.id } : { dos: true }), injections, ...(request.settings ? { settings: request.settings } : {}) },
        });
      }
    }
  }
  return { variants, notInjectable };
}
