/**
 * `state_match` (reliability): the task's outcome assertions hold once the agent is done — of the world's
 * final state (`shim:<name>`), of the tool calls it made, or of its message (the AES `expected_outcome` shape;
 * plugins/metrics/shared/assertions.ts). tau-bench judges agents the same way: by the state they leave. With
 * `expected_actions` (`[]`: nothing may change) the whole world is compared with the gold one, less the shims'
 * incidental state and the `ignore_paths` (plugins/evaluation/worlds/gold-world.ts). The score is the share of
 * checks that hold (with the task's `world_checks`, which the engine runs on the final world: `world_check` events); one that cannot be checked (a shim the run did not enable, a path that does not parse) is
 * reported, and the metric is unmeasured when none could be.
 */
import { defineMetric, unmeasured, type MetricContext, type MetricFailure } from '../../core/metric.ts';
import { checkAssertion, type Assertion } from '../../core/domain/assertions.ts';
import { toolCallsOf } from '../../core/domain/tool-calls.ts';
import { outcomeAssertionSchema } from '../../core/domain/schemas/scenario.ts';
import type { ScenarioTask } from '../../core/domain/scenario.ts';
import { safeExcerpt } from './shared/safe-excerpt.ts';
import { describeDifferences, jsonDifferences, type JsonDifference } from '../../core/domain/json-diff.ts';
import { pointerTrie } from '../../core/domain/pointer-patterns.ts';
import { isAnswer, type TraceEvent } from '../../core/domain/trace.ts';

/** The most differing paths a whole-world comparison reports (the count says when there were more). */
const MAX_DIFFERENCES = 1000;

/** The differences of two objects or arrays compared whole; `undefined` for scalars (their detail says it). */
function structuredDifferences(expected: unknown, actual: unknown): JsonDifference[] | undefined {
  const structured = (value: unknown) => value !== null && typeof value === 'object';
  return structured(expected) && structured(actual) ? jsonDifferences(expected, actual, MAX_DIFFERENCES) : undefined;
}

/**
 * What a failure may repeat of what an assertion found: a message's text with the task's canaries and card-like
 * numbers masked, as every metric's evidence (a leak must not be copied into the run record). Checked unmasked.
 */
function shown(found: unknown, task: ScenarioTask, max = 500): unknown {
  return typeof found === 'string' ? safeExcerpt(found, task, max) : found;
}

/** The first 50 differences as evidence, each value masked as a message would be. */
function shownDifferences(differences: readonly JsonDifference[], task: ScenarioTask): JsonDifference[] {
  return differences.slice(0, 50).map((difference) => ({
    path: difference.path,
    ...(difference.expected !== undefined ? { expected: shown(difference.expected, task, 200) } : {}),
    ...(difference.actual !== undefined ? { actual: shown(difference.actual, task, 200) } : {}),
  }));
}

/** The task's world once its gold world was built. */
type GoldComparison = NonNullable<MetricContext['world']> & { expected: Record<string, unknown> };

/** `payments.create_charge {"customer":"bob",…}`, clipped: how a failure names a gold action. */
function goldActionText(action: { index: number; name: string; arguments?: Record<string, unknown> }): string {
  const args = JSON.stringify(action.arguments ?? {});
  return `${action.index + 1} (${action.name} ${args.length > 160 ? `${args.slice(0, 160)}…` : args})`;
}

/**
 * Why the agent's world is not the gold one, or nothing when it is: the paths where they differ (what the
 * shims' incidental state and `ignore_paths` cover left out), and the gold writes with matchers that no call
 * of the agent met (the gold world was built without them).
 */
function goldFailure(gold: GoldComparison, task: ScenarioTask): Omit<MetricFailure, 'event_index'> | undefined {
  const ignored = gold.ignoredPaths?.length ? pointerTrie(gold.ignoredPaths) : undefined;
  const differences = jsonDifferences(gold.expected, gold.final, MAX_DIFFERENCES, ignored);
  const unmatched = gold.unmatchedActions ?? [];
  if (differences.length === 0 && unmatched.length === 0) return undefined;
  const count = differences.length === MAX_DIFFERENCES ? `${MAX_DIFFERENCES}+` : String(differences.length);
  const parts = [
    ...(unmatched.length ? [`no call of the agent's meets gold action ${unmatched.slice(0, 3).map(goldActionText).join(', gold action ')}${unmatched.length > 3 ? ` (and ${unmatched.length - 3} more)` : ''}`] : []),
    ...(differences.length ? [`the world differs from the one the expected actions produce${unmatched.length ? ` without ${unmatched.length === 1 ? 'it' : 'them'}` : ''} at ${count} path(s): ${describeDifferences(differences)}`] : []),
  ];
  return {
    code: 'LOGIC.STATE_MISMATCH', severity: 'high',
    message: shown(parts.join('; '), task) as string,
    evidence: {
      expected_actions: task.expected_actions!.length,
      differences: shownDifferences(differences, task),
      ...(unmatched.length ? { unmatched_actions: unmatched.slice(0, 20).map((action) => ({ index: action.index, name: action.name, arguments: shown(action.arguments ?? {}, task) })) } : {}),
      ...(gold.ignoredPaths?.length ? { ignored_paths: gold.ignoredPaths.slice(0, 50) } : {}),
    },
  };
}

/** The task's `world_check` events (its world_checks, run by the engine on the final world) as checks of this metric. */
function worldCheckResults(checks: readonly TraceEvent[], task: ScenarioTask) {
  const result = { measured: 0, held: 0, failures: [] as MetricFailure[], unchecked: [] as string[] };
  for (const check of checks) {
    if (check.data.passed === null || check.data.passed === undefined) {
      result.unchecked.push(String(check.data.detail));
      continue;
    }
    result.measured++;
    if (check.data.passed === true) result.held++;
    else {
      const description = (check.data.check as { description?: string } | undefined)?.description;
      result.failures.push({ code: 'LOGIC.STATE_MISMATCH', severity: 'high', message: shown(`${description ? `${description}: ` : ''}${String(check.data.detail)}`, task) as string, event_index: check.seq, evidence: { check: check.data.check } });
    }
  }
  return result;
}

export default defineMetric({
  id: 'state_match',
  dimension: 'reliability',
  version: '1.3.0',
  module: import.meta.url,
  // The world's states share every record no call replaced: compared here, identical references are skipped;
  // copied to a worker, the whole database would be cloned and walked (issue 27, "Speed").
  worldInline: true,
  description: 'The world the agent leaves (shim states), the tool calls it made and its message satisfy the task\'s expected_outcome assertions.',
  params: {
    type: 'object',
    additionalProperties: false,
    properties: {
      assertions: { type: 'array', maxItems: 200, items: outcomeAssertionSchema, description: 'Assertions to check instead of the task\'s expected_outcome.' },
    },
  },
  score({ task, params, output, outputEvent, events, world }) {
    const assertions = (params.assertions as Assertion[] | undefined) ?? task.expected_outcome ?? [];
    // Checks the engine ran after turns of a conversation (the world as it stood then), one per assertion.
    const turnChecks = events.filter((event) => event.type === 'turn_check');
    // The task's world_checks, which the engine ran on the final world by the shims' predicates.
    const worldChecks = events.filter((event) => event.type === 'world_check');
    // `expected_actions: []` is a gold too: the world must not change.
    const gold = task.expected_actions ? world : undefined;
    if (assertions.length === 0 && turnChecks.length === 0 && worldChecks.length === 0 && !gold) {
      return unmeasured(task.expected_actions ? 'expected_actions need a world: the scenario enables no shim' : 'the task has no expected_outcome assertions, expected_actions or turn checks');
    }
    const calls = toolCallsOf(events);
    // `message` reads every answer of the conversation (τ-bench: an output said in any turn counts).
    const messages = events.filter(isAnswer).map((event) => String(event.data?.output ?? ''));
    const subject = { message: output, messages: messages.length ? messages : [output], tool_calls: calls.map(({ event_index: _index, ...call }) => call), shims: world?.final ?? {} };
    const failures: MetricFailure[] = [];
    const unchecked: string[] = [];
    let measured = 0;
    let held = 0;
    for (const assertion of assertions) {
      const outcome = checkAssertion(assertion, subject);
      if (outcome.passed === null) {
        unchecked.push(outcome.detail);
        continue;
      }
      measured++;
      if (outcome.passed) {
        held++;
        continue;
      }
      const code = assertion.target === 'message' || assertion.target === 'last_message' ? 'LOGIC.TASK_FAILED' : 'LOGIC.STATE_MISMATCH';
      const lastChange = [...events].reverse().find((event) => event.type === 'state_change' && assertion.target === `shim:${String(event.data.shim)}`);
      // A whole document compared with equals says where it differs, path by path, not its first characters.
      const differences = (assertion.mode ?? 'equals') === 'equals' || assertion.mode === 'exact' ? structuredDifferences(assertion.expected, outcome.actual) : undefined;
      const detail = differences ? `${assertion.target}${assertion.property ? ` ${assertion.property}` : ''} differs at ${differences.length === MAX_DIFFERENCES ? `${MAX_DIFFERENCES}+` : differences.length} path(s): ${describeDifferences(differences)}` : outcome.detail;
      failures.push({
        code, severity: 'high',
        message: shown(`${assertion.description ? `${assertion.description}: ` : ''}${detail}`, task) as string,
        event_index: lastChange?.seq ?? outputEvent,
        evidence: { assertion, actual: shown(outcome.actual, task), ...(differences ? { differences: shownDifferences(differences, task) } : {}) },
      });
    }
    for (const check of turnChecks) {
      const assertion = check.data.assertion as Assertion;
      if (check.data.passed === null || check.data.passed === undefined) {
        unchecked.push(`turn ${String(check.data.turn)}: ${String(check.data.detail)}`);
        continue;
      }
      measured++;
      if (check.data.passed === true) {
        held++;
        continue;
      }
      failures.push({
        code: assertion?.target === 'message' || assertion?.target === 'last_message' ? 'LOGIC.TASK_FAILED' : 'LOGIC.STATE_MISMATCH', severity: 'high',
        message: shown(`after turn ${String(check.data.turn)}: ${assertion?.description ? `${assertion.description}: ` : ''}${String(check.data.detail)}`, task) as string,
        event_index: check.seq,
        evidence: { assertion, actual: shown(check.data.actual, task), turn: check.data.turn },
      });
    }
    const checked = worldCheckResults(worldChecks, task);
    measured += checked.measured;
    held += checked.held;
    failures.push(...checked.failures);
    unchecked.push(...checked.unchecked);
    if (gold) {
      // The whole world against the one the gold actions produce: one check, every differing path its evidence.
      if (!gold.expected) unchecked.push(gold.expectedError ?? 'the world of the expected actions could not be built');
      else {
        measured++;
        const failure = goldFailure(gold as GoldComparison, task);
        if (!failure) held++;
        else failures.push({ ...failure, event_index: [...events].reverse().find((event) => event.type === 'state_change')?.seq ?? outputEvent });
      }
    }
    if (measured === 0) return unmeasured(`no assertion could be checked: ${unchecked.join('; ')}`);
    return { score: held / measured, failures, ...(unchecked.length ? { note: `not checked: ${unchecked.join('; ')}` } : {}) };
  },
});
