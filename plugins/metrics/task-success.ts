/**
 * `task_success` (reliability): the output meets the task's `expected` — `equals`, `contains`, `regex`
 * (RE2, linear time) or `json_schema` (ajv 2020-12 on the JSON parsed from the output). The score is the share
 * of checks that hold. A rubric-only expectation is the LLM judge's business: unmeasured here.
 */
import { defineMetric, unmeasured, type MetricFailure } from '../../core/metric.ts';
import { checkExpected, hasCheckableExpectation, warmSchemaChecks, needsSchemaChecks } from './shared/expected.ts';
import { safeExcerpt } from './shared/safe-excerpt.ts';

export default defineMetric({
  id: 'task_success',
  dimension: 'reliability',
  version: '1.0.0',
  // Pure text work: scored in a worker, under the metric budget; its patterns are linear (hostile.test.ts).
  module: import.meta.url,
  linear: true,
  description: 'The output meets the task expectation: equals, contains, regex (linear-time RE2) or json_schema; score = share of checks that hold.',
  params: {
    type: 'object',
    additionalProperties: false,
    properties: {
      case_sensitive: { type: 'boolean', default: false, description: 'Compare equals/contains case-sensitively.' },
      normalize_whitespace: { type: 'boolean', default: true, description: 'Trim and collapse whitespace before equals/contains.' },
      regex_flags: { type: 'string', pattern: '^[ims]{0,3}$', default: '', description: 'Flags for expected.regex: i (ignore case), m (multiline), s (dot matches newline).' },
      extract_json: { type: 'boolean', default: true, description: 'For json_schema, find JSON inside prose or a ```json block when the whole output is not JSON.' },
    },
  },
  // ajv's load and first compile are setup, not this metric's work on an answer.
  warm: warmSchemaChecks,
  warmsFor: needsSchemaChecks,
  score({ task, output, outputEvent, params }) {
    if (!hasCheckableExpectation(task.expected)) {
      return unmeasured(task.expected?.rubric ? 'the expectation is a rubric: scored by llm_judge, not task_success' : 'the task has no expected value');
    }
    const outcome = checkExpected(task.expected, output, {
      caseSensitive: params.case_sensitive === true,
      normalizeWhitespace: params.normalize_whitespace !== false,
      regexFlags: typeof params.regex_flags === 'string' ? params.regex_flags : '',
      extractJson: params.extract_json !== false,
    });
    const skipped = outcome.checks.filter((check) => check.passed === null).map((check) => `${check.check}: ${check.detail}`);
    if (!outcome.measured) return unmeasured(skipped.join('; '));
    const ran = outcome.checks.filter((check) => check.passed !== null);
    const empty = output.trim().length === 0;
    const failures: MetricFailure[] = ran
      .filter((check) => !check.passed)
      .map((check) => ({
        code: empty ? 'RELIABILITY.EMPTY_OUTPUT' : check.code!,
        severity: 'high' as const,
        message: empty ? `the agent answered nothing (${check.check} check)` : check.detail,
        event_index: outputEvent,
        evidence: { check: check.check, output: safeExcerpt(output, task), ...(check.errors ? { errors: check.errors } : {}) },
      }));
    const score = ran.filter((check) => check.passed).length / ran.length;
    return { score, failures, ...(skipped.length ? { note: `skipped ${skipped.join('; ')}` } : {}) };
  },
});
