/**
 * Turning documents into scenarios: native scenarios are validated against the schema; documents in another
 * registered format (`ScenarioFormat`, such as AES v1.4 from plugins/aes) are converted first. Used by
 * evaluate, mutate, the catalog and spec-to-eval.
 */
import { RE2JS } from 're2js';
import { Problem, type FieldError } from '../problems.ts';
import { goldMatcherErrors } from './gold-matchers.ts';
import { pointerPatternError, pointerSegments } from './pointer-patterns.ts';
import type { Scenario, ScenarioTask } from './scenario.ts';
import { scenarioSchema } from './schemas/scenario.ts';
import { assertValid, describeErrors } from '../validate.ts';
import type { ScenarioFormat } from './scenario-format.ts';
import { hasCheckableExpected, impliedMetricIds } from './implied-metrics.ts';
import { injectionRuleErrors } from './injection.ts';

/** The checks a task can be written with, for the sentence that refuses a task with none. */
const CHECK_FIELDS = '"metrics", or a declared check ("expected", "expected_outcome", "expected_actions", "required_tools", "forbidden_tools", or turns with "expected_outcome")';

/** True when the task lists a metric or declares a check a metric runs (issue 32 item 4). */
function judgesSomething(task: ScenarioTask): boolean {
  return (task.metrics?.length ?? 0) > 0 || impliedMetricIds(task).length > 0 || hasCheckableExpected(task);
}

export interface NormalizeOptions {
  /** Recorded as `source` when the document does not say (`native`, `spec-to-eval`...). */
  source?: string;
  /** Where the document was read from; AES documents take their industry and use case from its folders. */
  path?: string;
  /** Formats besides the native one (`services.scenarioFormats.list()`); none: native scenarios only. */
  formats?: readonly ScenarioFormat[];
}

/**
 * Why each of `pointers` (an `ignore_paths` at `path`) cannot name a part of the world: not an RFC 6901 pointer,
 * or its first segment names no enabled shim (`*` stands for any).
 */
function ignorePathErrors(pointers: readonly string[] | undefined, path: string, enabled: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  (pointers ?? []).forEach((pointer, index) => {
    const syntax = pointerPatternError(pointer);
    const shim = syntax ? undefined : pointerSegments(pointer)[0];
    const problem = syntax
      ?? (shim === undefined ? 'names the whole world: start with a shim ("/email/messages/*/read")'
        : shim !== '*' && !enabled.includes(shim) ? `starts with "${shim}", which is no enabled shim (enabled: ${enabled.join(', ') || 'none'})` : undefined);
    if (problem) errors.push({ path: `${path}/${index}`, message: problem });
  });
  return errors;
}

/**
 * What JSON Schema cannot say: task ids are unique within the scenario (replies, traces and scores are keyed
 * by them), each task has something to judge it by (listed metrics or a declared check), scripted turns and a
 * simulated user are not both given, `expected.regex` and the `$regex` matchers of gold actions compile as RE2
 * (the linear-time syntax the metrics match with), matchers have their shape, and `ignore_paths` are JSON
 * Pointers into enabled shims; injection placeholders name declared vectors and every vector is used (injection.ts).
 */
export function scenarioRuleErrors(scenario: Scenario): FieldError[] {
  const errors: FieldError[] = injectionRuleErrors(scenario);
  const firstIndex = new Map<string, number>();
  const enabled = scenario.enabled_shims ?? [];
  errors.push(...ignorePathErrors(scenario.ignore_paths, '/ignore_paths', enabled));
  scenario.tasks.forEach((task, index) => {
    errors.push(...ignorePathErrors(task.ignore_paths, `/tasks/${index}/ignore_paths`, enabled));
    task.expected_actions?.forEach((action, actionIndex) => goldMatcherErrors(action.arguments ?? {}, `/tasks/${index}/expected_actions/${actionIndex}/arguments`, errors));
    const first = firstIndex.get(task.id);
    if (first !== undefined) errors.push({ path: `/tasks/${index}/id`, message: `duplicates the id of /tasks/${first}` });
    else firstIndex.set(task.id, index);
    if (!judgesSomething(task)) errors.push({ path: `/tasks/${index}`, message: `task "${task.id}" has nothing to judge it by: give it ${CHECK_FIELDS}` });
    if (task.turns !== undefined && task.user_simulator !== undefined) errors.push({ path: `/tasks/${index}/user_simulator`, message: `task "${task.id}" has both scripted "turns" and a "user_simulator": the conversation is one or the other` });
    if (task.user_simulator?.greeting !== undefined && task.input !== '') errors.push({ path: `/tasks/${index}/input`, message: `task "${task.id}" opens with the agent's greeting (user_simulator.greeting): the simulated user writes the first message, so "input" must be empty` });
    const regex = task.expected?.regex;
    if (regex !== undefined) {
      try {
        RE2JS.compile(regex);
      } catch (error) {
        errors.push({ path: `/tasks/${index}/expected/regex`, message: `is not a valid RE2 pattern (no lookaround or backreferences): ${(error as Error).message}`.slice(0, 300) });
      }
    }
  });
  return errors;
}

/**
 * Checks the rules and gives every task its `metrics` list (empty when the task has only declared checks, whose
 * metrics the engine adds: core/domain/implied-metrics.ts), so that nothing downstream meets a task without one.
 */
function assertRules(scenario: Scenario, what: string): Scenario {
  const errors = scenarioRuleErrors(scenario);
  if (errors.length) throw new Problem('validation_failed', { detail: `${what} is invalid: ${describeErrors(errors)}`, errors });
  return scenario.tasks.every((task) => Array.isArray(task.metrics)) ? scenario : { ...scenario, tasks: scenario.tasks.map((task) => (Array.isArray(task.metrics) ? task : { ...task, metrics: [] })) };
}

/**
 * Validates a native scenario or converts one in a registered format; throws `validation_failed` listing every
 * failing path (paths into the original document when that is what is broken).
 */
export function normalizeScenario(document: unknown, options: NormalizeOptions = {}): Scenario {
  const format = options.formats?.find((candidate) => candidate.detect(document));
  if (format) {
    // A conversion must yield a valid scenario for a valid document; checking again guards that promise.
    const what = `normalised ${format.name} scenario`;
    return assertRules(assertValid<Scenario>(scenarioSchema, format.toScenario(document, { path: options.path }), what), what);
  }
  const scenario = assertRules(assertValid<Scenario>(scenarioSchema, document, 'scenario'), 'scenario');
  return options.source && !scenario.source ? { ...scenario, source: options.source } : scenario;
}
