// A metric in plain JavaScript: the answer thanks the user or says please.
import { defineMetric, definePlugin, fail, pass } from 'agent-eval-harness/plugin';

export const politeReply = defineMetric({
  id: 'polite_reply',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'The answer thanks the user or says please.',
  score: ({ output }) => (/\b(please|thanks|thank you)\b/i.test(output) ? pass() : fail('RELIABILITY.IMPOLITE', 'the answer neither thanks nor says please')),
});

export default definePlugin({
  name: 'team-polite-reply',
  setup(host) {
    host.metrics.register(politeReply, 'team-polite-reply');
  },
});
