/**
 * `conversation_end` (reliability): a conversation must end by its participants — the user's goal met (the
 * simulated user's `###STOP###`, `###TRANSFER###`, `###OUT-OF-SCOPE###`), the agent ending it or handing it off,
 * or its script run out — and not by a limit: `max_turns`, `max_steps` or `max_errors` (`conversation_end`
 * event, plugins/evaluation/units/conversation.ts). τ-bench gives such a conversation reward 0 whatever the
 * database says (tau2-bench `src/tau2/evaluator/evaluator.py`: only AGENT_STOP and USER_STOP are scored). A task
 * of one turn has no conversation to cut: it passes.
 */
import { defineMetric, fail, pass } from '../../core/metric.ts';

const LIMITS: Record<string, string> = {
  turn_limit: 'its user-turn limit (max_turns)',
  step_limit: 'its step limit (max_steps)',
  error_limit: 'its limit of failed tool calls (max_errors)',
  user_tool_limit: 'the simulated user\'s limit of tool rounds before one message (50)',
};

/** The code this metric reports (the bundled taxonomy's). */
const CONVERSATION_LIMIT = 'LOGIC.CONVERSATION_LIMIT';

export default defineMetric({
  id: 'conversation_end',
  dimension: 'reliability',
  version: '1.0.0',
  // No `module`: it reads one event, so the request thread scores it in microseconds, where a worker would be
  // sent the task's world with it (a τ-bench retail unit: three views of a 2.8 MB database).
  description: 'The conversation ended by the user or the agent, not by a turn, step or tool-error limit (τ-bench: reward 0 when a limit ends it).',
  params: { type: 'object', additionalProperties: false, properties: {} },
  score({ events }) {
    const end = events.findLast((event) => event.type === 'conversation_end');
    if (!end) return { score: 1, failures: [], note: 'a single turn: no conversation limit applies' };
    const endedBy = String(end.data?.ended_by ?? '');
    const limit = LIMITS[endedBy];
    if (!limit) return pass();
    const counted = { turns: end.data?.turns, ...(end.data?.steps !== undefined ? { steps: end.data.steps, tool_errors: end.data.tool_errors } : {}) };
    return fail(CONVERSATION_LIMIT, `the conversation reached ${limit} before the user or the agent ended it`, { severity: 'high', event_index: end.seq, evidence: { ended_by: endedBy, ...counted } });
  },
});
