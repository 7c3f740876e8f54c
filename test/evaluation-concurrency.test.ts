/**
 * Issue 15 item 8: independent tasks (`conversation: "per_task"`) run side by side up to the run's concurrency,
 * and the trace still reads as a sequential run's: whole units, in order, sequence numbers without gaps.
 */
import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';

function slowAgent(delayMs: number, failOn?: string) {
  const state = { active: 0, peak: 0, histories: [] as number[] };
  const plugin: Plugin = {
    name: 'slow-agent',
    setup(host) {
      host.agents.register({
        name: 'slow',
        description: 'test: answers after a delay, counting calls in flight',
        async call(input, context) {
          state.active++;
          state.peak = Math.max(state.peak, state.active);
          state.histories.push(context.history.length);
          // Later tasks answer sooner, so they finish out of order.
          await new Promise((resolve) => setTimeout(resolve, delayMs * (1 + (100 - Number(context.task.id.slice(1))) / 100)));
          state.active--;
          if (context.task.id === failOn) throw new Error('agent down');
          return { output: `Your balance is 42 EUR (${input}).` };
        },
      }, 'slow-agent');
    },
  };
  return { state, plugin };
}

const tasks = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `t${index}`, input: `question ${index}`, expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }));

describe('evaluation: independent tasks run concurrently (issue 15 item 8)', () => {
  it('runs per_task scenarios up to their concurrency and writes whole units in order', async () => {
    const agent = slowAgent(20);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    const { run, trace } = await evaluate(t, { scenario: scriptedScenario('parallel', { agent: { adapter: 'slow' }, conversation: 'per_task', concurrency: 8, tasks: tasks(40) }) });
    expect(run.status).toBe('succeeded');
    expect(run.compliance.status).toBe('pass');
    expect(agent.state.peak).toBe(8);
    expect(agent.state.histories.every((length) => length === 0)).toBe(true);
    expect(trace.map((event: any) => event.seq)).toEqual(trace.map((_: unknown, index: number) => index));
    const taskOrder = trace.filter((event: any) => event.task_id).map((event: any) => event.task_id);
    const firstSeen = [...new Set(taskOrder)];
    expect(firstSeen).toEqual(tasks(40).map((task) => task.id));
    // Whole units: once the next task starts, the previous one never appears again.
    expect(taskOrder.every((id: string, index: number) => index === 0 || firstSeen.indexOf(id) >= firstSeen.indexOf(taskOrder[index - 1]))).toBe(true);
    const failure = trace.find((event: any) => event.type === 'metric_result');
    expect(failure.data.failures).toEqual([]);
  });

  it('adds no listener per agent call to the run\'s signal: no MaxListenersExceededWarning with 16 calls in flight (issue 26 item 7)', async () => {
    const warnings: Error[] = [];
    const collect = (warning: Error) => warnings.push(warning);
    process.on('warning', collect);
    try {
      const agent = slowAgent(20);
      const t = await testApp({ plugins: [testMetrics, agent.plugin] });
      const { run } = await evaluate(t, { scenario: scriptedScenario('wide', { agent: { adapter: 'slow' }, conversation: 'per_task', concurrency: 16, tasks: tasks(32) }) });
      expect(run.status).toBe('succeeded');
      expect(agent.state.peak).toBe(16);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off('warning', collect);
    }
  });

  it('keeps shared-conversation scenarios sequential, with the earlier turns', async () => {
    const agent = slowAgent(5);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    await evaluate(t, { scenario: scriptedScenario('shared', { agent: { adapter: 'slow' }, tasks: tasks(5) }) });
    expect(agent.state.peak).toBe(1);
    expect(agent.state.histories).toEqual([0, 2, 4, 6, 8]);
  });

  it('ends at a failed call: units before it are recorded, none after it', async () => {
    const agent = slowAgent(10, 't5');
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    const { run, trace } = await evaluate(t, { scenario: scriptedScenario('failing', { agent: { adapter: 'slow' }, conversation: 'per_task', tasks: tasks(20) }) });
    expect(run.status).toBe('failed');
    const seen = [...new Set(trace.filter((event: any) => event.task_id).map((event: any) => event.task_id))];
    expect(seen).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(trace.find((event: any) => event.type === 'error').task_id).toBe('t5');
  });

  it('points metric failures at the real events of the unit', async () => {
    const agent = slowAgent(5);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    const failing = tasks(6).map((task) => ({ ...task, expected: { contains: 'never' } }));
    const { trace } = await evaluate(t, { scenario: scriptedScenario('remap', { agent: { adapter: 'slow' }, conversation: 'per_task', tasks: failing }) });
    for (const result of trace.filter((event: any) => event.type === 'metric_result')) {
      const target = trace[result.data.failures[0].event_index];
      expect(target).toMatchObject({ type: 'agent_output', task_id: result.task_id });
    }
  });
});
