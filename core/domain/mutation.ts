/**
 * Turning one scenario into perturbed variants (api-contract.md, `POST /api/v1/mutate`; integration.md item 3):
 * a chain of mutators is applied in order to every task's `input` and to nothing else, so ids, expected values
 * and metric settings stay intact and a variant still evaluates; within the input, the spans the task hinges on
 * (protected-spans.ts: harm terms, numbers, names, quoted text, expected values…) stay intact too. Variant k of a request uses its own seed
 * (variant 0 the request's seed itself, variant k > 0 a seed derived from it and k), and every task and chain
 * step draws from its own derived stream, so the same seed always yields the same variants.
 */
import { Problem } from '../problems.ts';
import type { Registry } from '../registry.ts';
import type { Mutator, MutatorContext } from '../mutator.ts';
import type { LlmClient } from '../llm.ts';
import type { Scenario, ScenarioTask } from './scenario.ts';
import { normalizeScenario } from './scenario-load.ts';
import { createRng, deriveSeed } from './rng.ts';
import { protectedSpans, taskLiterals, type TaskLiteral } from './protected-spans.ts';
import type { ProtectedSpan } from '../mutator.ts';
import { hideSpans } from './placeholders.ts';

/** One field a mutation changed: the task's input before and after the whole chain. */
export interface MutationChange {
  task_id: string;
  field: 'input';
  before: string;
  after: string;
}

/** One mutated copy of a scenario, with the seed that reproduces it alone (`count: 1`). */
export interface ScenarioVariant {
  variant_id: string;
  types: string[];
  seed: number;
  scenario: Scenario;
  changes: MutationChange[];
}

/** Options of `mutateScenario`. */
export interface MutateScenarioOptions {
  /** Non-negative safe integer; the same seed gives the same variants. */
  seed: number;
  /** How many variants (1..MAX_VARIANTS). */
  count: number;
  /** Where the mutator types are looked up (`services.mutators`). */
  mutators: Registry<Mutator>;
  /** The configured provider; mutators with `requiresLlm` are refused without it. */
  llm?: LlmClient;
  /** Mutator options (for example `{rate: 0.1}`), handed to every mutator of the chain. */
  options?: Record<string, unknown>;
  /** Aborts LLM-backed mutators. */
  signal?: AbortSignal;
}

/** The most variants one call produces. */
export const MAX_VARIANTS = 100;
/** The longest chain of mutator types. */
export const MAX_CHAIN = 16;
/** The seed used when a request gives none, so an unseeded request is reproducible too. */
export const DEFAULT_SEED = 0;

/** Accepts `type` as a string or a list of strings, as the contract's bodies do. */
export function normalizeTypes(type: string | string[]): string[] {
  return Array.isArray(type) ? [...type] : [type];
}

/** The mutator types a caller may use: LLM-backed ones only when a provider is configured. */
export function availableMutators(mutators: Registry<Mutator>, llm?: LlmClient): Mutator[] {
  return mutators.list().filter((mutator) => !mutator.requiresLlm || llm !== undefined);
}

/** The seed of variant `index` of a request seeded with `seed`. */
export function variantSeed(seed: number, index: number): number {
  return index === 0 ? seed : deriveSeed(seed, index);
}

function resolveChain(types: string[], mutators: Registry<Mutator>, llm?: LlmClient): Mutator[] {
  // Only an error needs the list of known types; the engine resolves chains per variant.
  let knownTypes: string[] | undefined;
  const knownList = () => (knownTypes ??= availableMutators(mutators, llm).map((mutator) => mutator.type));
  if (!Array.isArray(types) || types.length === 0) {
    const known = knownList();
    throw new Problem('validation_failed', {
      detail: `type must name at least one mutator; known types: ${known.join(', ')}`,
      errors: [{ path: '/type', message: 'must name at least one mutator' }],
      extra: { known_types: known },
    });
  }
  if (types.length > MAX_CHAIN) {
    throw new Problem('validation_failed', {
      detail: `a chain holds at most ${MAX_CHAIN} mutators`,
      errors: [{ path: '/type', message: `must have at most ${MAX_CHAIN} items` }],
    });
  }
  return types.map((type, index) => {
    const mutator = typeof type === 'string' ? mutators.get(type) : undefined;
    const path = Array.isArray(types) && types.length > 1 ? `/type/${index}` : '/type';
    if (!mutator) {
      const known = knownList();
      throw new Problem('validation_failed', {
        detail: `unknown mutator type "${String(type)}"; known types: ${known.join(', ')}`,
        errors: [{ path, message: `unknown mutator type; known types: ${known.join(', ')}` }],
        extra: { known_types: known },
      });
    }
    if (mutator.requiresLlm && !llm) {
      const known = knownList();
      throw new Problem('validation_failed', {
        detail: `mutator "${mutator.type}" needs a language-model provider; set AEH_LLM_BASE_URL and AEH_LLM_MODEL to enable it (known types: ${known.join(', ')})`,
        errors: [{ path, message: 'needs a language-model provider, none is configured' }],
        extra: { known_types: known },
      });
    }
    return mutator;
  });
}

function checkCounts(seed: number, count: number): void {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new Problem('validation_failed', { detail: 'seed must be a non-negative safe integer', errors: [{ path: '/seed', message: 'must be a non-negative integer' }] });
  }
  if (!Number.isInteger(count) || count < 1 || count > MAX_VARIANTS) {
    throw new Problem('validation_failed', { detail: `count must be an integer from 1 to ${MAX_VARIANTS}`, errors: [{ path: '/count', message: `must be from 1 to ${MAX_VARIANTS}` }] });
  }
}

/**
 * One step of a chain, with the text's protected spans kept: a mutator that edits in place sees them as
 * placeholders and they are put back after it; a whole-message one sees the text and where they are. A step
 * that lost or copied a placeholder is discarded (the text goes on unchanged): its edit broke what the task
 * hinges on.
 */
async function mutateStep(mutator: Mutator, text: string, literals: readonly TaskLiteral[], context: Omit<MutatorContext, 'protected'>, known?: ProtectedSpan[]): Promise<string> {
  const spans = known ?? protectedSpans(text, literals);
  const hidden = mutator.wholeMessage || spans.length === 0 ? undefined : hideSpans(text, spans);
  const result = await mutator.mutate(hidden?.text ?? text, { ...context, protected: hidden?.spans ?? spans });
  if (typeof result !== 'string') throw new Error(`mutator "${mutator.type}" returned ${typeof result}, not a string`);
  return hidden ? hidden.restore(result) ?? text : result;
}

/**
 * A task's literals and the protected spans of its own input, kept per task object: every variant of a request
 * (and every request for the same scenario object) starts its chain from the same input, so the spans of that
 * first step are found once, not once per variant. The input is compared, in case the object was changed since.
 */
const firstSteps = new WeakMap<ScenarioTask, { input: string; literals: TaskLiteral[]; spans: ProtectedSpan[] }>();

function firstStepOf(task: ScenarioTask): { literals: TaskLiteral[]; spans: ProtectedSpan[] } {
  let known = firstSteps.get(task);
  if (!known || known.input !== task.input) {
    const literals = taskLiterals(task);
    known = { input: task.input, literals, spans: protectedSpans(task.input, literals) };
    firstSteps.set(task, known);
  }
  return known;
}

async function mutateTask(task: ScenarioTask, taskIndex: number, chain: Mutator[], seed: number, options: MutateScenarioOptions): Promise<string> {
  const { literals, spans } = firstStepOf(task);
  let text = task.input;
  for (let step = 0; step < chain.length; step++) {
    const rng = createRng(deriveSeed(seed, taskIndex, step));
    text = await mutateStep(chain[step]!, text, literals, { rng, options: options.options ?? {}, llm: options.llm, signal: options.signal }, step === 0 ? spans : undefined);
  }
  return text;
}

/** Validates a variant; a mutation that pushes an input past the schema (base64 of a 1 MB input) is a 400. */
function validated(candidate: Scenario, label: string): Scenario {
  try {
    return normalizeScenario(candidate);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    throw new Problem('validation_failed', {
      detail: `the scenario mutated by ${label} no longer validates: ${error.detail}`,
      errors: error.errors,
      cause: error,
    });
  }
}

/**
 * Applies the chain `types` in order, `count` variants, deterministic for `seed`. Unknown type →
 * Problem('validation_failed', {extra: {known_types}}); an LLM-backed type without a provider is refused the
 * same way. Every variant is validated against the scenario schema before it is returned.
 */
export async function mutateScenario(scenario: Scenario, types: string[], options: MutateScenarioOptions): Promise<ScenarioVariant[]> {
  const { seed, count, mutators, llm } = options;
  const chain = resolveChain(types, mutators, llm);
  checkCounts(seed, count);
  const label = chain.map((mutator) => mutator.type).join('+');
  const variants: ScenarioVariant[] = [];
  for (let index = 0; index < count; index++) {
    const seedOfVariant = variantSeed(seed, index);
    const changes: MutationChange[] = [];
    const tasks: ScenarioTask[] = [];
    for (let taskIndex = 0; taskIndex < scenario.tasks.length; taskIndex++) {
      const task = scenario.tasks[taskIndex]!;
      const after = await mutateTask(task, taskIndex, chain, seedOfVariant, options);
      if (after !== task.input) changes.push({ task_id: task.id, field: 'input', before: task.input, after });
      tasks.push({ ...task, input: after });
    }
    const mutated = validated({ ...scenario, tasks, source: 'mutation' }, label);
    variants.push({ variant_id: `${label}@${seedOfVariant}#${index}`, types: chain.map((mutator) => mutator.type), seed: seedOfVariant, scenario: mutated, changes });
  }
  return variants;
}
