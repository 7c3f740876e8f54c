/**
 * `state_match` (reliability): the task's outcome assertions hold once the agent is done — of the world's
 * final state (`shim:<name>`), of the tool calls it made, or of its message (the AES `expected_outcome` shape;
 * plugins/metrics/shared/assertions.ts). tau-bench judges agents the same way: by the state they leave. The
 * score is the share of assertions that hold; one that cannot be checked (a shim the run did not enable, a
 * path that does not parse) is reported, and the metric is unmeasured when none could be.
 */
import { defineMetric, unmeasured, type MetricFailure } from '../../core/metric.ts';
import { checkAssertion, type Assertion } from '../../core/domain/assertions.ts';
import { toolCallsOf } from '../../core/domain/tool-calls.ts';
import { outcomeAssertionSchema } from '../../core/domain/schemas/scenario.ts';
import type { ScenarioTask } from '../../core/domain/scenario.ts';
import { safeExcerpt } from './shared/safe-excerpt.ts';
import { describeDifferences, jsonDifferences, type JsonDifference } from '../../core/domain/json-diff.ts';
import { isAnswer } from '../../core/domain/trace.ts';

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

export default defineMetric({
  id: 'state_match',
  dimension: 'reliability',
  version: '1.2.0',
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
    const gold = task.expected_actions?.length ? world : undefined;
    if (assertions.length === 0 && turnChecks.length === 0 && !gold) return unmeasured('the task has no expected_outcome assertions, expected_actions or turn checks');
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
    if (gold) {
      // The whole world against the one the gold actions produce: one check, every differing path its evidence.
      if (!gold.expected) unchecked.push(gold.expectedError ?? 'the world of the expected actions could not be built');
      else {
        measured++;
        const differences = jsonDifferences(gold.expected, gold.final, MAX_DIFFERENCES);
        if (differences.length === 0) held++;
        else {
          const lastChange = [...events].reverse().find((event) => event.type === 'state_change');
          failures.push({
            code: 'LOGIC.STATE_MISMATCH', severity: 'high',
            message: shown(`the world differs from the one the expected actions produce at ${differences.length === MAX_DIFFERENCES ? `${MAX_DIFFERENCES}+` : differences.length} path(s): ${describeDifferences(differences)}`, task) as string,
            event_index: lastChange?.seq ?? outputEvent,
            evidence: { expected_actions: task.expected_actions!.length, differences: shownDifferences(differences, task) },
          });
        }
      }
    }
    if (measured === 0) return unmeasured(`no assertion could be checked: ${unchecked.join('; ')}`);
    return { score: held / measured, failures, ...(unchecked.length ? { note: `not checked: ${unchecked.join('; ')}` } : {}) };
  },
});
