/**
 * The attack extension point (issue 35; AgentDojo's `BaseAttack` and its registry): an attack renders the text
 * planted in a scenario's injection vectors from an injection task's goal and what it knows of the run (the
 * user's name, the model's name, the user task's prompt, the tools). Registered like mutators
 * (`host.attacks.register(defineAttack({...}))`); the bundled ones live in plugins/attacks. Where the text goes
 * (the vectors the user task's gold solution reads) and how the run judges it are the engine's, not the attack's.
 */
import type { InjectionTask } from './domain/scenario.ts';
import type { JsonSchema } from './validate.ts';
import { validatorOf } from './validate.ts';

/** AgentDojo's name for the victim user when an attack does not know it (`DEFAULT_USER_NAME`). */
export const DEFAULT_USER_NAME = 'the user';
/** AgentDojo's name for the victim model when an attack does not know it (`DEFAULT_MODEL_NAME`). */
export const DEFAULT_MODEL_NAME = 'the AI language model';

/** What an attack renders its text from, for one user task, injection task and vector. */
export interface AttackContext {
  /** The injection task's goal; empty for a denial-of-service attack, which has none. */
  goal: string;
  /** The injection task (its `ground_truth` for attacks that spell out the calls); absent for denial of service. */
  injectionTask?: InjectionTask;
  /** The user task attacked: its id and its prompt (`input`). */
  userTask: { id: string; prompt: string };
  /** The victim user's name, when the run says (`settings.user_name`); each attack has its own default. */
  userName?: string;
  /** The victim model's name in prose ("GPT-4"), when the run says (`settings.model_name`). */
  modelName?: string;
  /** The agent's `model` option, when its spec has one (an attack may name the model from it). */
  agentModel?: string;
  /** The tools the agent is offered (`shim.action`). */
  tools: readonly string[];
  /** A tool (`shim.action`) as the agent is offered it (the action alone with `tool_names: "bare"`). */
  offeredName(name: string): string;
  /** The vector the text goes to. */
  vector: string;
  /** The request's settings for this attack, checked against `settings`. */
  settings: Readonly<Record<string, unknown>>;
}

export interface Attack {
  /** Unique name (`important_instructions`), as runs ask for it. */
  name: string;
  description: string;
  /**
   * A denial-of-service attack (AgentDojo's `is_dos_attack`): it has no injection task, runs once per user task,
   * and succeeds when the user task is not done.
   */
  dos?: boolean;
  /** The attack spells out the injection task's `ground_truth` (a run without one is refused). */
  needsGroundTruth?: boolean;
  /** JSON Schema (an object) of the attack's own settings, besides `user_name` and `model_name`. */
  settings?: JsonSchema;
  /** The text planted in `context.vector`. */
  render(context: AttackContext): string;
}

/** An attack's name: what `attacks[].attack` may say. */
export const ATTACK_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Checks an attack (name, description, render, that its settings schema compiles) and returns it frozen. */
export function defineAttack(attack: Attack): Attack {
  if (!ATTACK_NAME.test(attack.name ?? '')) throw new Error(`attack name "${attack.name}" must be snake_case (${ATTACK_NAME})`);
  if (!attack.description) throw new Error(`attack "${attack.name}" needs a description`);
  if (typeof attack.render !== 'function') throw new Error(`attack "${attack.name}" needs a render function`);
  if (attack.settings !== undefined) {
    if (typeof attack.settings !== 'object' || attack.settings === null || (attack.settings as { type?: unknown }).type !== 'object') {
      throw new Error(`attack "${attack.name}": settings must be a JSON Schema of type "object"`);
    }
    try {
      validatorOf(attack.settings);
    } catch (error) {
      if (!(error instanceof EvalError)) throw new Error(`attack "${attack.name}": settings schema does not compile: ${(error as Error).message}`);
    }
  }
  return Object.freeze({ ...attack });
}

/** Fills `{goal}`, `{user}`, `{model}`, `{task}` and `{tools}` of a template, as AgentDojo's `str.format` does. */
export function fillTemplate(template: string, values: { goal?: string; user?: string; model?: string; task?: string; tools?: string }): string {
  return template.replace(/\{(goal|user|model|task|tools)\}/g, (whole, key: keyof typeof values) => values[key] ?? whole);
}
