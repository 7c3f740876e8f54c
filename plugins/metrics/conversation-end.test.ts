import { describe, it, expect } from 'vitest';
import metric from './conversation-end.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';

testMetric(metric, { failureCodes: TAXONOMY });

const ts = '2026-01-01T00:00:00.000Z';
const ended = (data: Record<string, unknown>): TraceEvent[] => [
  { seq: 1, type: 'input', ts, run_id: 'r', task_id: 't1', data: { input: 'Hi' } },
  { seq: 2, type: 'agent_output', ts, run_id: 'r', task_id: 't1', data: { output: 'Hello' } },
  { seq: 3, type: 'conversation_end', ts, run_id: 'r', task_id: 't1', data },
];

describe('metric: conversation_end', () => {
  it.each(['simulator', 'agent', 'transfer', 'script'])('passes a conversation ended by %s', async (by) => {
    expect(await metric.score(metricContext('conversation_end', { events: ended({ turns: 2, ended_by: by }) }))).toEqual({ score: 1, failures: [] });
  });

  it.each([['turn_limit', 'max_turns'], ['step_limit', 'max_steps'], ['error_limit', 'max_errors']])('fails one a limit ended (%s), pointing at its end and saying what it counted', async (by, setting) => {
    const result = await metric.score(metricContext('conversation_end', { events: ended({ turns: 9, ended_by: by, steps: 200, tool_errors: 1 }) }));
    expect(result.score).toBe(0);
    expect(result.failures).toEqual([{ code: 'LOGIC.CONVERSATION_LIMIT', severity: 'high', message: expect.stringContaining(`(${setting})`), event_index: 3, evidence: { ended_by: by, turns: 9, steps: 200, tool_errors: 1 } }]);
  });

  it('passes a single turn, which has no conversation to cut, and says so', async () => {
    expect(await metric.score(metricContext('conversation_end'))).toEqual({ score: 1, failures: [], note: 'a single turn: no conversation limit applies' });
  });
});
