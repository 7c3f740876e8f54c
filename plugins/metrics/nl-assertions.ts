/**
 * `nl_assertions` (reliability): a language-model judge reads the whole conversation and decides whether each
 * natural-language assertion about the agent holds ("The agent refuses to cancel the order"), as τ²-bench's
 * NL-assertion evaluator does (tau2-bench `src/tau2/evaluator/evaluator_nl_assertions.py`, release a2c0247): its
 * system prompt and its user prompt word for word, the conversation as `role: content` lines, the assertions as
 * a Python list, temperature 0, and the reward 1 only when every graded outcome is met. The judge is the
 * configured provider (`AEH_LLM_*`, the one the simulated user uses); without one the assertions are unmeasured,
 * never guessed. An answer that is not the JSON asked for is retried once, then unmeasured.
 */
import { defineMetric, unmeasured, type MetricResult } from '../../core/metric.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';
import { extractJson } from './shared/expected.ts';
import { excerpt } from './shared/text.ts';

/** The code this metric reports (the bundled taxonomy's). */
const NL_ASSERTION_NOT_MET = 'LOGIC.NL_ASSERTION_NOT_MET';

const INDENT = ' '.repeat(8);
// τ²-bench's prompts are Python triple-quoted strings: their lines keep the source's eight-space indent.
const indented = (lines: string[]) => lines.map((line) => (line === '' ? '' : `${INDENT}${line}`)).join('\n');

/** τ²-bench's system prompt for the NL-assertion judge, byte for byte. */
export const NL_JUDGE_SYSTEM_PROMPT = `\n${indented([
  'TASK',
  '- You will be given a list of expected outcomes and a conversation that was collected during a test case run.',
  '- The conversation is between an agent and a customer.',
  '- Your job is to evaluate whether the agent satisfies each of the expected outcomes.',
  '- Grade each expected outcome individually.',
  '',
  'FORMAT',
  '- Your response should be a JSON object with the following fields:',
  '- `reasoning`: a short explanation for your classification',
  '- `metExpectation`: `true` if the agent satisfies the expected outcomes, `false` otherwise',
  '- `expectedOutcome`: repeat the expectation from the input that you are grading',
])}\n${INDENT}\n${indented([
  'Example response structure:',
  '{',
  '    "results": [',
  '        {',
  '            "expectedOutcome": "<one of the expected outcomes from the input>",',
  '            "reasoning": "<reasoning trace>",',
  '            "metExpectation": <false or true>,',
  '        }',
  '    ]',
  '}',
])}\n${INDENT}`;

/** Python's `repr` of a string: single quotes unless it holds one and no double quote; control characters escaped. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '\\' || char === quote) body += `\\${char}`;
    else if (char === '\n') body += '\\n';
    else if (char === '\r') body += '\\r';
    else if (char === '\t') body += '\\t';
    else if (code < 0x20 || code === 0x7f) body += `\\x${code.toString(16).padStart(2, '0')}`;
    else body += char;
  }
  return `${quote}${body}${quote}`;
}

/** τ²-bench's user prompt: the conversation, then the assertions as Python prints a list of strings. */
export function nlJudgeUserPrompt(conversation: string, assertions: readonly string[]): string {
  return `\n${INDENT}conversation:\n${INDENT}${conversation}\n${INDENT}\n${INDENT}expectedOutcomes:\n${INDENT}[${assertions.map(pythonRepr).join(', ')}]\n${INDENT}`;
}

const resultText = (result: unknown) => (result !== null && typeof result === 'object' && 'error' in result ? `Error: ${String((result as { error: { message?: unknown } }).error?.message ?? '')}` : JSON.stringify(result ?? null));

/**
 * The task's conversation as τ²-bench's judge reads it: one `role: content` line per message — the agent's
 * greeting, the user's messages, per run of tool calls a call message (`assistant: None`, as Python prints a
 * message without text) and each result (`tool: …`), the agent's answers, and the user's closing `###STOP###`.
 */
export function conversationLines(events: readonly TraceEvent[]): string {
  const lines: string[] = [];
  let inCalls = false;
  for (const event of events) {
    const data = event.data ?? {};
    if (event.type === 'tool_call') {
      if (!inCalls) lines.push('assistant: None');
      inCalls = true;
      lines.push(`tool: ${resultText(data.error ? { error: data.error } : data.result)}`);
      continue;
    }
    if (event.type === 'input' && !data.probe) {
      if (typeof data.greeting === 'string') lines.push(`assistant: ${data.greeting}`);
      if (data.input !== '') lines.push(`user: ${String(data.input ?? '')}`);
    } else if (event.type === 'agent_output' && !data.probe) lines.push(`assistant: ${String(data.output ?? '')}`);
    else if (event.type === 'conversation_end' && data.ended_by === 'simulator') lines.push('user: ###STOP###');
    else continue;
    inCalls = false;
  }
  return lines.join('\n');
}

interface Graded { outcome: string; met: boolean; reasoning: string }

/** The judge's grades, or why its answer is not the JSON asked for. */
function gradesOf(content: string): Graded[] | string {
  const parsed = extractJson(content)?.value as { results?: unknown } | undefined;
  if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.results)) return 'the answer is not a JSON object with a "results" list';
  const grades: Graded[] = [];
  for (const result of parsed.results as Array<Record<string, unknown>>) {
    const met = result?.metExpectation;
    // Pydantic's bool, as τ²-bench reads it: true/false, or their spellings as strings.
    const truth = met === true || met === 'true' || met === 'True' ? true : met === false || met === 'false' || met === 'False' ? false : undefined;
    if (truth === undefined) return 'a result has no boolean "metExpectation"';
    grades.push({ outcome: String(result.expectedOutcome ?? ''), met: truth, reasoning: String(result.reasoning ?? '') });
  }
  return grades;
}

function unavailable(note: string, event: number, detail: string): MetricResult {
  return { score: null, note, failures: [{ code: 'INFRA.JUDGE_UNAVAILABLE', severity: 'low', message: note, event_index: event, evidence: { detail: excerpt(detail, 200) } }] };
}

export default defineMetric({
  id: 'nl_assertions',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'A language-model judge checks natural-language assertions about the agent against the whole conversation (τ²-bench\'s NL-assertion evaluator); unmeasured without a provider.',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['assertions'],
    properties: {
      assertions: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 4000 }, description: 'What must hold of the agent\'s conduct, each judged against the conversation.' },
    },
  },
  async score({ params, events, outputEvent, llm, signal }) {
    const assertions = (params.assertions as string[] | undefined) ?? [];
    if (assertions.length === 0) return { score: 1, failures: [], note: 'no assertions to judge' };
    if (!llm) return unmeasured('no language-model provider is configured (AEH_LLM_BASE_URL, AEH_LLM_MODEL): the natural-language assertions are not judged');
    const messages = [
      { role: 'system' as const, content: NL_JUDGE_SYSTEM_PROMPT },
      { role: 'user' as const, content: nlJudgeUserPrompt(conversationLines(events), assertions) },
    ];
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      let content: string;
      try {
        content = await llm.complete({ messages, temperature: 0, signal });
      } catch (error) {
        if ((error as Error)?.name === 'AbortError' && signal?.aborted) throw error;
        return unavailable('the judge provider failed: the natural-language assertions are unmeasured', outputEvent, (error as Error)?.message ?? String(error));
      }
      const grades = gradesOf(content);
      if (typeof grades === 'string') {
        problem = grades;
        continue;
      }
      // τ²-bench's reward: every outcome the judge graded is met (it does not count the grades).
      const unmet = grades.filter((grade) => !grade.met);
      if (unmet.length === 0) return { score: 1, failures: [], note: `judged by ${llm.model}: ${grades.length} of ${assertions.length} assertion(s) graded, all met` };
      return {
        score: 0,
        note: `judged by ${llm.model}`,
        failures: [{
          code: NL_ASSERTION_NOT_MET, severity: 'high',
          message: `the judge found ${unmet.length} of ${grades.length} assertion(s) not met: ${unmet.slice(0, 3).map((grade) => excerpt(grade.outcome, 160)).join('; ')}`,
          event_index: outputEvent,
          evidence: { model: llm.model, not_met: unmet.slice(0, 20).map((grade) => ({ assertion: excerpt(grade.outcome, 300), reasoning: excerpt(grade.reasoning, 500) })) },
        }],
      };
    }
    return unavailable('the judge answered outside the JSON asked for twice: the natural-language assertions are unmeasured', outputEvent, problem);
  },
});
