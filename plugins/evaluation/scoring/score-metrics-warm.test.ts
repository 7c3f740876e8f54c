/**
 * The engine's inline warm-up (score-metrics.ts `warmInline`) with `Metric.warmsFor`: a metric's `warm` runs once,
 * before the first task that needs it, outside the budget, and not at all in a run with no such task (the CLI
 * paid ajv's cold compile on every `aeh evaluate`, json_schema check or not: issue 36).
 */
import { describe, it, expect } from 'vitest';
import { defineMetric } from '../../../core/metric.ts';
import type { Plugin } from '../../../core/plugin.ts';
import { testApp } from '../../../test/helpers.ts';
import { scriptedScenario, waitForTask } from '../../../test/evaluation-fixtures.ts';
import taskSuccess from '../../metrics/task-success.ts';
import counterfactualParity from '../../metrics/counterfactual-parity.ts';
import robustness from '../../metrics/robustness.ts';
import { needsSchemaChecks } from '../../metrics/shared/expected.ts';

/** What the metric saw, in order: `warm`, and `<task> warm|cold` per score. */
const seen: string[] = [];
let warmed = false;

/** A new metric object per run: the engine remembers which metric objects it warmed in this process. */
const warmingMetric = () => defineMetric({
  id: 'warming_metric',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'Test metric: notes its warm-up and whether each score found it done.',
  warm() {
    seen.push('warm');
    warmed = true;
  },
  warmsFor: needsSchemaChecks,
  score({ task }) {
    seen.push(`${task.id} ${warmed ? 'warm' : 'cold'}`);
    return { score: 1, failures: [] };
  },
});

const plugin = (): Plugin => ({ name: 'warming-metric', setup: (host) => host.metrics.register(warmingMetric(), 'warming-metric') });

const SCHEMA = { json_schema: { type: 'object' } };

async function evaluate(tasks: Array<{ id: string; expected: Record<string, unknown> }>): Promise<string[]> {
  seen.length = 0;
  warmed = false;
  const t = await testApp({ plugins: [plugin()] });
  const scenario = scriptedScenario('warm', {
    agent: { adapter: 'scripted', replies: { '*': '{}' } },
    concurrency: 1,
    tasks: tasks.map((task) => ({ ...task, input: 'Answer in JSON.', metrics: [{ id: 'warming_metric' }] })),
  });
  const accepted = await t.json('POST', '/api/evaluate', { body: { scenario } });
  expect(accepted.status).toBe(202);
  expect((await waitForTask(t, accepted.body.task_id, 60_000)).status).toBe('succeeded');
  return [...seen];
}

describe('scoring: warm-up only where a task needs it (Metric.warmsFor)', () => {
  it('warms once, before the first task that needs it, not before one that does not', async () => {
    expect(await evaluate([{ id: 't1', expected: { contains: '{' } }, { id: 't2', expected: SCHEMA }, { id: 't3', expected: SCHEMA }])).toEqual(['t1 cold', 'warm', 't2 warm', 't3 warm']);
  });

  it('never warms in a run where no task needs it', async () => {
    expect(await evaluate([{ id: 't1', expected: { contains: '{' } }, { id: 't2', expected: { equals: '{}' } }])).toEqual(['t1 cold', 't2 cold']);
  });

  it('the json_schema metrics warm ajv only for a task with a json_schema check', () => {
    for (const checking of [taskSuccess, counterfactualParity, robustness]) expect(checking.warmsFor).toBe(needsSchemaChecks);
    expect(needsSchemaChecks({ expected: SCHEMA })).toBe(true);
    expect(needsSchemaChecks({ expected: { contains: 'x', rubric: 'y' } })).toBe(false);
    expect(needsSchemaChecks({})).toBe(false);
  });
});
