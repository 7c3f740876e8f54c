import { describe, it, expect } from 'vitest';
import type { TraceEvent } from '../../core/domain/trace.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';
import metric from './tool-use.ts';

const ts = '2026-01-01T00:00:00.000Z';
/** A trace in which the agent looked the customer up, then answered. */
const events = (): TraceEvent[] => [
  { seq: 0, type: 'run_start', ts, run_id: 'run-1', data: {} },
  { seq: 1, type: 'input', ts, run_id: 'run-1', task_id: 't1', data: { input: 'What is my balance?' } },
  { seq: 2, type: 'tool_call', ts, run_id: 'run-1', task_id: 't1', data: { name: 'crm.lookup', arguments: { customer: 'c-7' }, result: { balance: 42 } } },
  { seq: 3, type: 'agent_output', ts, run_id: 'run-1', task_id: 't1', data: { output: 'Your balance is 42 EUR.' } },
];

testMetric(metric, { failureCodes: TAXONOMY, context: { events: events(), task: { required_tools: ['crm.lookup', 'ledger.history'] } } });

describe('metric: tool_use', () => {
  it('passes when the required tools were called and fails naming the one that was not', async () => {
    const called = await metric.score(metricContext('tool_use', { events: events(), task: { required_tools: ['crm.lookup'] } }));
    expect(called.score).toBe(1);
    const missing = await metric.score(metricContext('tool_use', { events: events(), task: { required_tools: ['crm.lookup', 'ledger.history'] } }));
    expect(missing.score).toBeLessThan(1);
    expect(JSON.stringify(missing.failures)).toContain('ledger.history');
  });
});
