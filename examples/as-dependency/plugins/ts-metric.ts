// A metric in TypeScript, loaded as it is: tsx on Node, natively on Deno and Bun.
import { defineMetric, definePlugin, fail, pass, type MetricContext } from 'agent-eval-harness/plugin';

export const wordBudget = defineMetric({
  id: 'word_budget',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'The answer must not be longer than params.max_words words (default 120).',
  params: { type: 'object', properties: { max_words: { type: 'integer', minimum: 1 } } },
  score({ output, params }: MetricContext) {
    const budget = (params.max_words as number | undefined) ?? 120;
    const words = output.split(/\s+/).filter(Boolean).length;
    return words <= budget ? pass() : fail('RELIABILITY.OUTPUT_TOO_LONG', `${words} words; the budget is ${budget}`);
  },
});

export default definePlugin({
  name: 'team-word-budget',
  setup(host) {
    host.metrics.register(wordBudget, 'team-word-budget');
  },
});
