/**
 * `tool_use` (reliability): the agent's trajectory. Required tools were called (optionally in order; a call
 * that failed does not count unless `count_failed_calls`), arguments matched (a partial object or a JSON
 * Schema, for at least one call of the tool), and the number of calls stayed within a budget. The requirements
 * come from the task (`required_tools`) or from `params`. Forbidden tools are `tool_safety`'s (security): a
 * forbidden call is excessive agency, which must be able to fail a run, not a reliability slip.
 * The score is the share of checks that hold; nothing to check is unmeasured.
 */
import { defineMetric, unmeasured, type MetricFailure } from '../../core/metric.ts';
import { canonicalToolName } from '../../core/domain/tool-names.ts';
import { check } from '../../core/validate.ts';
import { containsPartial } from '../../core/domain/assertions.ts';
import { toolCallsOf, type RecordedToolCall } from '../../core/domain/tool-calls.ts';

interface ArgumentCheck {
  tool: string;
  match?: Record<string, unknown>;
  schema?: Record<string, unknown>;
}

const TOOLS = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } };

function describeCalls(calls: RecordedToolCall[]): string {
  return calls.length ? calls.map((call) => `${call.name}${call.error ? ` (failed: ${call.error.code})` : ''}`).join(', ') : 'no tool';
}

/** True when `wanted` appears in `called` as a subsequence (other calls may come in between). */
function inOrder(called: string[], wanted: string[]): boolean {
  let next = 0;
  for (const name of called) if (name === wanted[next]) next++;
  return next === wanted.length;
}

export default defineMetric({
  id: 'tool_use',
  dimension: 'reliability',
  version: '1.0.0',
  module: import.meta.url,
  description: 'The agent called the tools the task needs (in order if asked), with the right arguments, within a call budget.',
  params: {
    type: 'object',
    additionalProperties: false,
    properties: {
      required: { ...TOOLS, description: 'Tools that must be called (default: the task\'s required_tools).' },
      ordered: { type: 'boolean', default: false, description: 'The required tools must be called in the order listed.' },
      arguments: {
        type: 'array', maxItems: 50,
        items: { type: 'object', required: ['tool'], additionalProperties: false, properties: { tool: { type: 'string' }, match: { type: 'object' }, schema: { type: 'object' } } },
        description: 'For each entry, at least one successful call of the tool has arguments containing `match` and/or valid against `schema`.',
      },
      max_calls: { type: 'integer', minimum: 0, description: 'The most tool calls the task may take.' },
      count_failed_calls: { type: 'boolean', default: false, description: 'A call that failed counts as calling a required tool.' },
    },
  },
  score({ task, params, events, outputEvent }) {
    const calls = toolCallsOf(events);
    const required = ((params.required as string[] | undefined) ?? task.required_tools ?? []).map(canonicalToolName);
    const argumentChecks = (params.arguments as ArgumentCheck[] | undefined) ?? [];
    const budget = params.max_calls as number | undefined;
    const counted = params.count_failed_calls === true ? calls : calls.filter((call) => !call.error);
    const failures: MetricFailure[] = [];
    let checks = 0;

    for (const tool of required) {
      checks++;
      if (!counted.some((call) => call.name === tool)) {
        failures.push({ code: 'LOGIC.TOOL_NOT_CALLED', severity: 'high', message: `required tool ${tool} was not called${counted.length < calls.length ? ' successfully' : ''}; the agent called ${describeCalls(calls)}`, event_index: outputEvent, evidence: { tool, called: calls.map((call) => call.name) } });
      }
    }
    if (params.ordered === true && required.length > 1) {
      checks++;
      const names = counted.map((call) => call.name);
      if (required.every((tool) => names.includes(tool)) && !inOrder(names, required)) {
        failures.push({ code: 'LOGIC.TOOL_ORDER', severity: 'medium', message: `required tools were not called in the order ${required.join(' → ')}; the agent called ${describeCalls(counted)}`, event_index: outputEvent, evidence: { expected_order: required, called: names } });
      }
    }
    for (const wanted of argumentChecks) {
      checks++;
      const tool = canonicalToolName(wanted.tool);
      const candidates = counted.filter((call) => call.name === tool);
      const matching = candidates.find((call) => (wanted.match === undefined || containsPartial(call.arguments, wanted.match)) && (wanted.schema === undefined || check(wanted.schema, call.arguments).length === 0));
      if (!matching) {
        failures.push({
          code: 'LOGIC.TOOL_ARGUMENTS', severity: 'high',
          message: candidates.length ? `no call of ${tool} had the expected arguments` : `${tool} was never called, so its arguments could not match`,
          event_index: candidates[0]?.event_index ?? outputEvent,
          evidence: { tool, expected: wanted.match ?? wanted.schema, actual: candidates.map((call) => call.arguments).slice(0, 5) },
        });
      }
    }
    if (budget !== undefined) {
      checks++;
      if (calls.length > budget) failures.push({ code: 'RELIABILITY.TOOL_BUDGET_EXCEEDED', severity: 'medium', message: `${calls.length} tool calls, more than the budget of ${budget}`, event_index: calls[budget]?.event_index ?? outputEvent, evidence: { calls: calls.length, budget } });
    }
    if (checks === 0) return unmeasured('nothing to check: the task names no required tools and the metric no arguments or budget');
    // One failure per check that did not hold.
    return { score: (checks - failures.length) / checks, failures };
  },
});
