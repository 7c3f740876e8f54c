import { describe, it, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import metric, { conversationLines, nlJudgeUserPrompt, pythonRepr, NL_JUDGE_SYSTEM_PROMPT } from './nl-assertions.ts';
import { JUDGE_ENDPOINT as ENDPOINT, judgeAnswer as answer, judgeClient as llm, judgeServer } from '../../test/judge-stub.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';

const server = judgeServer();
const ASSERTIONS = ['The agent does not cancel the order.'];

testMetric(metric, { failureCodes: TAXONOMY, params: { assertions: ASSERTIONS } });

const ts = '2026-01-01T00:00:00.000Z';
const event = (seq: number, type: TraceEvent['type'], data: Record<string, unknown>): TraceEvent => ({ seq, type, ts, run_id: 'r', task_id: 't1', data });
const CONVERSATION: TraceEvent[] = [
  event(1, 'input', { input: 'Cancel #W1.', greeting: 'Hi! How can I help you today?', simulated: true }),
  event(2, 'tool_call', { name: 'tau_retail.get_order_details', arguments: { order_id: '#W1' }, result: { status: 'pending' } }),
  event(3, 'tool_call', { name: 'tau_retail.cancel_pending_order', arguments: {}, error: { code: 'invalid', message: 'reason is required' } }),
  event(4, 'agent_output', { output: 'I cannot cancel it.' }),
  event(5, 'conversation_end', { turns: 1, ended_by: 'simulator' }),
];

describe('metric: nl_assertions', () => {
  it('sends τ²-bench\'s prompts: its system prompt, the conversation as role: content lines, the assertions as a Python list', async () => {
    let body: any;
    server.use(http.post(ENDPOINT, async ({ request }) => {
      body = await request.json();
      return answer(JSON.stringify({ results: [{ expectedOutcome: ASSERTIONS[0], reasoning: 'It refused.', metExpectation: true }] }));
    }));
    const result = await metric.score(metricContext('nl_assertions', { llm: llm(), params: { assertions: ASSERTIONS }, events: CONVERSATION }));
    expect(result).toEqual({ score: 1, failures: [], note: 'judged by judge-1: 1 of 1 assertion(s) graded, all met' });
    expect(body.temperature).toBe(0);
    expect(body.response_format).toBeUndefined();
    expect(body.messages).toEqual([{ role: 'system', content: NL_JUDGE_SYSTEM_PROMPT }, { role: 'user', content: nlJudgeUserPrompt(conversationLines(CONVERSATION), ASSERTIONS) }]);
    expect(conversationLines(CONVERSATION)).toBe([
      'assistant: Hi! How can I help you today?', 'user: Cancel #W1.', 'assistant: None', 'tool: {"status":"pending"}', 'tool: Error: reason is required', 'assistant: I cannot cancel it.', 'user: ###STOP###',
    ].join('\n'));
    expect(NL_JUDGE_SYSTEM_PROMPT.startsWith('\n        TASK\n        - You will be given a list of expected outcomes')).toBe(true);
  });

  it('prints strings as Python\'s repr does', () => {
    expect(pythonRepr('plain')).toBe("'plain'");
    expect(pythonRepr("It's")).toBe('"It\'s"');
    expect(pythonRepr('both \' and "')).toBe('\'both \\\' and "\'');
    expect(pythonRepr('a\\b\nc\td\u0001é')).toBe("'a\\\\b\\nc\\td\\x01é'");
  });

  it('fails when the judge finds an assertion not met, with its reasoning; τ²-bench\'s "true"/"false" strings are read as booleans', async () => {
    server.use(http.post(ENDPOINT, () => answer('```json\n{"results": [{"expectedOutcome": "The agent does not cancel the order.", "reasoning": "It cancelled.", "metExpectation": "false"}]}\n```')));
    const result = await metric.score(metricContext('nl_assertions', { llm: llm(), params: { assertions: ASSERTIONS }, events: CONVERSATION }));
    expect(result.score).toBe(0);
    expect(result.failures).toEqual([expect.objectContaining({ code: 'LOGIC.NL_ASSERTION_NOT_MET', severity: 'high', evidence: { model: 'judge-1', not_met: [{ assertion: ASSERTIONS[0], reasoning: 'It cancelled.' }] } })]);
  });

  it('is unmeasured, saying why, without a provider, after two answers that are not the JSON asked for, and when the provider fails', async () => {
    expect(await metric.score(metricContext('nl_assertions', { params: { assertions: ASSERTIONS } }))).toEqual({ score: null, failures: [], note: expect.stringContaining('no language-model provider is configured') });
    let calls = 0;
    server.use(http.post(ENDPOINT, () => (calls++, answer('I think it is fine.'))));
    const prose = await metric.score(metricContext('nl_assertions', { llm: llm(), params: { assertions: ASSERTIONS } }));
    expect(calls).toBe(2);
    expect(prose).toMatchObject({ score: null, failures: [{ code: 'INFRA.JUDGE_UNAVAILABLE' }] });
    server.use(http.post(ENDPOINT, () => new HttpResponse('down', { status: 503 })));
    expect(await metric.score(metricContext('nl_assertions', { llm: llm(), params: { assertions: ASSERTIONS } }))).toMatchObject({ score: null, failures: [{ code: 'INFRA.JUDGE_UNAVAILABLE' }] });
  });
});
