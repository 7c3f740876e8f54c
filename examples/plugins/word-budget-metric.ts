/**
 * Example: a team's own metric, loaded without a fork (docs/plugins.md, "A custom metric").
 *
 * `word_budget` (reliability) fails a task whose answer is longer than `params.max_words` words, the kind of
 * house rule a support team adds ("answers fit on a phone screen"). Use it in a scenario task:
 * `"metrics": [{ "id": "word_budget", "params": { "max_words": 80 } }]`.
 *
 * Load it from `aeh.config.ts` in PROJECT_ROOT (`export default { plugins: [wordBudget] }`) or with
 * `AEH_PLUGINS=./examples/plugins/word-budget-metric.ts`.
 */
import { definePlugin, defineMetric, fail, pass, type FailureCode, type MetricContext } from '../../core/plugin-api.ts';

/** Words as a reader counts them: runs of letters, digits, apostrophes or hyphens. */
function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}'’-]+/gu)?.length ?? 0;
}

/** The failure it reports, declared so that it joins the taxonomy (`GET /api/v1/taxonomy`) under RELIABILITY. */
export const OUTPUT_TOO_LONG: FailureCode = {
  code: 'RELIABILITY.OUTPUT_TOO_LONG',
  name: 'Output too long',
  dimension: 'reliability',
  parent: 'RELIABILITY',
  description: 'The answer is longer than the word budget the task allows.',
};

export const wordBudget = defineMetric({
  id: 'word_budget',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'The answer must not be longer than params.max_words words (default 120).',
  params: {
    type: 'object',
    additionalProperties: false,
    properties: { max_words: { type: 'integer', minimum: 1, maximum: 100000 } },
  },
  score({ output, params, outputEvent }: MetricContext) {
    const budget = (params.max_words as number | undefined) ?? 120;
    const words = countWords(output);
    if (words <= budget) return pass();
    // Partial credit: half over budget scores 0.5; twice the budget or more scores 0.
    const score = Math.max(0, 1 - (words - budget) / budget);
    return fail(OUTPUT_TOO_LONG.code, `the answer has ${words} words; the budget is ${budget}`, {
      severity: 'low',
      score,
      event_index: outputEvent,
      evidence: { words, budget },
    });
  },
});

export default definePlugin({
  name: 'example-word-budget',
  version: '1.0.0',
  failureCodes: [OUTPUT_TOO_LONG],
  metrics: [wordBudget],
});
