import { describe, it, expect } from 'vitest';
import { testApp } from '../../test/helpers.ts';
import { evaluate, scriptedScenario } from '../../test/evaluation-fixtures.ts';
import houseRules, { noApologies } from './no-apologies.ts';
import { testMetric } from '../../testing/metric.ts';

testMetric(noApologies);

describe('example plugin: no_apologies, a metric in one function', () => {
  it('fails an apologetic answer in a run, and its failure code joins the taxonomy', async () => {
    const t = await testApp({ plugins: [houseRules], userPlugins: ['house-rules'] });
    const scenario = scriptedScenario('apologies', {
      agent: { adapter: 'scripted', replies: { t1: 'Sorry, I cannot find it.', t2: 'It arrives on Monday.' } },
      tasks: [
        { id: 't1', input: 'Where is my parcel?', metrics: [{ id: 'no_apologies' }] },
        { id: 't2', input: 'When does it arrive?', metrics: [{ id: 'no_apologies' }] },
      ],
    });
    const { task, trace } = await evaluate(t, { scenario });
    expect(task.status).toBe('succeeded');
    const results = trace.filter((event) => event.type === 'metric_result');
    expect(results.map((event) => [event.task_id, event.data.score])).toEqual([['t1', 0], ['t2', 1]]);
    expect(results[0].data.failures[0].code).toBe('RELIABILITY.NO_APOLOGIES');
    const taxonomy = await t.json('GET', '/api/v1/taxonomy?within=RELIABILITY');
    expect(taxonomy.body.items).toContainEqual(expect.objectContaining({ code: 'RELIABILITY.NO_APOLOGIES', plugin: 'house-rules' }));
  });
});
