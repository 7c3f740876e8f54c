/**
 * How much gold replaying one submission may ask for (issue 33 item 3): every task's `expected_actions` are
 * replayed on a fresh copy of its world, and a call of a shim like `kv` copies the world (one `kv.set` on a
 * 20,000-key world took ~48 ms here). So tasks × gold actions × world size is bounded at submission, over the
 * original and each mutated variant (each builds its own gold worlds): a 400 naming the limit, before anything
 * runs. What passes is replayed off the request thread where its shims allow (gold-world.ts).
 */
import { Problem } from '../../../core/problems.ts';
import type { Scenario } from '../../../core/domain/scenario.ts';

/** The most action·bytes (gold actions × bytes of the world they replay on) one submission may ask for. */
export const MAX_GOLD_REPLAY_WORK = 20_000_000;
/** A world's size counts at least this: a shim may load its state from elsewhere (τ-bench's data directory). */
const MIN_WORLD_BYTES = 4096;

/** A world's size as the limit counts it: the JSON of the scenario's initial state, at least `MIN_WORLD_BYTES`. */
export function worldBytesOf(scenario: Pick<Scenario, 'initial_state'>): number {
  return Math.max(MIN_WORLD_BYTES, scenario.initial_state ? JSON.stringify(scenario.initial_state).length : 0);
}

/**
 * Refuses a submission whose gold replays (`variants` mutated copies besides the original, and `attackActions`:
 * the gold actions of each attack case's one task, replayed once to place the attack and once to judge it) pass
 * the limit.
 */
export function checkGoldReplay(scenario: Scenario, variants: number, attackActions = 0): void {
  const actions = scenario.tasks.reduce((sum, task) => sum + (task.expected_actions?.length ?? 0), 0);
  if (actions === 0) return;
  const worldBytes = worldBytesOf(scenario);
  const work = (actions * (variants + 1) + attackActions * 2) * worldBytes;
  if (work <= MAX_GOLD_REPLAY_WORK) return;
  const copies = variants > 0 ? ` in each of ${variants + 1} copies (the original and its variants)` : '';
  throw new Problem('validation_failed', {
    detail: `the tasks' gold solutions would replay ${actions} expected_actions${copies} on a world of ${worldBytes} bytes: ${work} action·bytes; the limit is ${MAX_GOLD_REPLAY_WORK} (tasks × expected_actions × world size). Give fewer expected_actions or a smaller initial_state`,
    errors: [{ path: '/tasks', message: `tasks × expected_actions × world size is ${work}; the limit is ${MAX_GOLD_REPLAY_WORK}` }],
    extra: { limit: MAX_GOLD_REPLAY_WORK, gold_replay_work: work },
  });
}
