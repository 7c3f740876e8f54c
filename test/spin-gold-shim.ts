/**
 * A shim for the gold-replay test (plugins/evaluation/worlds/gold-replay.test.ts) whose `spin` action never
 * returns: a worker loads it (`replayModule`) to replay a gold solution, and only the shim budget stops it. The
 * agent never calls it; on the request thread it would hang the service.
 */
import { defineShim } from '../core/shim.ts';

export default defineShim<{ spun: number }>({
  name: 'spin_world',
  replayModule: import.meta.url,
  description: 'test: a world whose spin action never ends',
  actions: [
    { name: 'look', description: 'Looks at the world.', readOnly: true, parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'spin', description: 'Spins forever.', parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
  initialState() {
    return { spun: 0 };
  },
  call(action, _params, state) {
    // A synchronous loop only the budget (a stopped worker) ends.
    while (action === 'spin') state = { spun: state.spun + 1 };
    return { result: state, state };
  },
});
