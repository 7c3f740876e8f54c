/**
 * Replays a τ-bench task's gold actions on a domain database, as the harness's world does (parameters checked
 * against the action's schema, then the shim's pure call), and hashes the final database. Used by the fidelity
 * check (bench/tau/fidelity.mjs), its fixture test and the task converter; a refused action leaves the
 * database as it was and the replay goes on, as τ-bench's evaluator does.
 */
import { actionOf, checkShimParams, type Json, type Shim } from '../../../core/shim.ts';
import { canonicalDb } from './shared.ts';

/**
 * The final database (τ-bench's keyed form: the shim's view) and each action's outcome: `ok` (with `results`,
 * `ok <canonical JSON of the result>`), `<code>: <message>` when the shim refused it, `invalid: /arguments…`
 * when its schema did. `db` is the database as τ-bench publishes it.
 */
export async function replayGold(shim: Shim, db: Json, actions: ReadonlyArray<{ name: string; arguments?: Record<string, unknown> }>, options: { results?: boolean } = {}): Promise<{ actions: string[]; db: Json }> {
  const context = { config: {}, now: '2024-05-15T15:00:00Z' };
  let state = await shim.initialState(db, context);
  const outcomes: string[] = [];
  for (const gold of actions) {
    const action = actionOf(shim, gold.name);
    const params = gold.arguments ?? {};
    const problems = action ? checkShimParams(action, params) : [];
    if (!action || problems.length > 0) {
      outcomes.push(`invalid: ${action ? problems.map((problem) => `${problem.path} ${problem.message}`).join('; ') : `no action ${gold.name}`}`);
      continue;
    }
    const outcome = await shim.call(gold.name, params, state, context);
    if ('error' in outcome) outcomes.push(`${outcome.error.code}: ${outcome.error.message}`);
    else {
      outcomes.push(options.results ? `ok ${canonicalDb(outcome.result)}` : 'ok');
      state = outcome.state;
    }
  }
  return { actions: outcomes, db: shim.view ? await shim.view(state) : state };
}
