import { describe, it, expect } from 'vitest';
import { indexRecording } from './replay.ts';

const lines = (...events: unknown[]) => new TextEncoder().encode(events.map((event) => JSON.stringify(event)).join('\n'));

describe('agent: replay recording index', () => {
  it('takes the first non-probe output per task and variant, with its tool calls and latency', () => {
    const recording = indexRecording(lines(
      { seq: 0, type: 'run_start', task_id: null, data: {} },
      { seq: 1, type: 'agent_output', task_id: 't1', data: { output: 'first', latency_ms: 12 } },
      { seq: 2, type: 'tool_call', task_id: 't1', data: { name: 'ledger', arguments: { id: 1 }, result: 42 } },
      { seq: 3, type: 'agent_output', task_id: 't1', data: { output: 'probe answer', probe: true } },
      { seq: 3, type: 'tool_call', task_id: 't1', data: { name: 'after-probe' } },
      { seq: 3, type: 'tool_call', task_id: 't2', data: { name: 'logged-first' } },
      { seq: 3, type: 'agent_output', task_id: 't2', data: { output: 'two' } },
      { seq: 4, type: 'agent_output', task_id: 't1', variant: 'typo@1#0', data: { output: 'variant' } },
      { seq: 5, type: 'agent_output', task_id: 't1', data: { output: 'second' } },
    ));
    expect(recording.get('\u0000t1')).toEqual({ output: 'first', latency_ms: 12, tool_calls: [{ name: 'ledger', arguments: { id: 1 }, result: 42 }] });
    expect(recording.get('typo@1#0\u0000t1')).toEqual({ output: 'variant' });
    expect(recording.get('\u0000t2')).toEqual({ output: 'two', tool_calls: [{ name: 'logged-first', arguments: undefined, result: undefined }] });
  });

  it('accepts plain {task_id, output} lines and skips broken ones', () => {
    const bytes = new TextEncoder().encode(`{"task_id":"a","output":"x","latency_ms":3}\nnot json\n{"task_id":7,"output":"y"}\n`);
    const recording = indexRecording(bytes);
    expect([...recording.keys()]).toEqual(['\u0000a']);
    expect(recording.get('\u0000a')).toEqual({ output: 'x', latency_ms: 3 });
  });

  it('keeps a call recorded as not executed unrun (AgentDojo\'s tool loop stopped before it), and says so', () => {
    const recording = indexRecording(lines(
      { type: 'agent_output', task_id: 't1', data: { output: 'done' } },
      { type: 'tool_call', task_id: 't1', data: { name: 'bank.send_money', arguments: { amount: 1 } } },
      { type: 'tool_call', task_id: 't1', data: { name: 'bank.get_balance', arguments: {}, executed: false } },
    ));
    expect(recording.get('\u0000t1')!.tool_calls).toEqual([
      { name: 'bank.send_money', arguments: { amount: 1 }, result: undefined },
      { name: 'bank.get_balance', arguments: {}, result: undefined, executed: false },
    ]);
  });
});
