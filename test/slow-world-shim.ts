/**
 * A shim for the world-budget test (test/hostile/sql-world-budget.test.ts) whose starting state builds once,
 * then never again in the same worker: submission's check passes, the run's own build runs past the budget.
 * Its calls and state are trivial; only `initialState` matters.
 */
import { defineShim } from '../core/shim.ts';

let builds = 0;

export default defineShim<{ built: number }>({
  name: 'slow_world',
  module: import.meta.url,
  description: 'test: a world that builds once per worker',
  actions: [{ name: 'look', description: 'Looks at the world.', readOnly: true, parameters: { type: 'object', properties: {}, additionalProperties: false } }],
  initialState() {
    builds++;
    for (;;) {
      // from the second build on, a synchronous loop only the budget stops
      if (builds === 1) return { built: builds };
    }
  },
  call(_action, _params, state) {
    return { result: state, state };
  },
});
