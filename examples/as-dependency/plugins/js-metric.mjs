// A metric in plain JavaScript, as one function: the answer thanks the user or says please.
import { defineMetric, definePlugin } from 'agent-eval-harness/plugin';

export const politeReply = defineMetric('polite_reply', (output) => /\b(please|thanks|thank you)\b/i.test(output), {
  description: 'The answer thanks the user or says please.',
});

export default definePlugin({ name: 'team-polite-reply', metrics: [politeReply] });
