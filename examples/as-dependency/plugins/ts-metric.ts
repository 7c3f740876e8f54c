// A metric in TypeScript, loaded as it is: tsx on Node, natively on Deno and Bun.
import { defineMetric, definePlugin } from 'agent-eval-harness/plugin';

export const wordBudget = defineMetric({
  id: 'word_budget',
  description: 'The answer must not be longer than params.max_words words (default 120).',
  params: { type: 'object', properties: { max_words: { type: 'integer', minimum: 1 } } },
  // params.max_words is typed number | undefined, from the schema above.
  check: (output, { params }) => output.split(/\s+/).filter(Boolean).length <= (params.max_words ?? 120),
});

export default definePlugin({ name: 'team-word-budget', metrics: [wordBudget] });
