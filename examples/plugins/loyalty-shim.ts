/**
 * Example: a team's own world shim, loaded without a fork (docs/plugins.md, "A custom shim").
 *
 * `loyalty` simulates a points ledger: members earn and redeem points; redeeming more than a member holds is
 * `insufficient_funds`, an unknown member `not_found`. Enable it in a scenario with
 * `"enabled_shims": ["loyalty"], "initial_state": {"loyalty": {"members": {"m-17": 1200}}}` and the agent gets
 * the tools `loyalty.balance`, `loyalty.earn` and `loyalty.redeem`.
 *
 * Load it from `aeh.config.ts` (`export default { plugins: [loyalty] }`) or with
 * `AEH_PLUGINS=./examples/plugins/loyalty-shim.ts`.
 */
import { defineShim, shimError, type Json, type Plugin, type ShimOutcome } from '../../core/plugin-api.ts';

interface LoyaltyState {
  [key: string]: Json;
  /** Points per member id. */
  members: { [member: string]: number };
  history: Array<{ member: string; change: number; reason: string }>;
}

const MEMBER = { type: 'string', minLength: 1, maxLength: 64 };
const POINTS = { type: 'integer', minimum: 1, maximum: 1_000_000 };

export const loyaltyShim = defineShim<LoyaltyState>({
  name: 'loyalty',
  description: 'A loyalty points ledger.',
  initialStateSchema: { type: 'object', properties: { members: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } } }, additionalProperties: false },
  actions: [
    { name: 'balance', description: 'Points a member holds.', readOnly: true, parameters: { type: 'object', required: ['member'], properties: { member: MEMBER }, additionalProperties: false } },
    { name: 'earn', description: 'Add points to a member.', parameters: { type: 'object', required: ['member', 'points', 'reason'], properties: { member: MEMBER, points: POINTS, reason: { type: 'string', maxLength: 200 } }, additionalProperties: false } },
    { name: 'redeem', description: 'Spend points of a member.', parameters: { type: 'object', required: ['member', 'points', 'reason'], properties: { member: MEMBER, points: POINTS, reason: { type: 'string', maxLength: 200 } }, additionalProperties: false } },
  ],
  // A shim builds its state from the scenario's initial_state (validated against initialStateSchema first).
  initialState(seed) {
    const given = (seed ?? {}) as { members?: Record<string, number> };
    return { members: { ...given.members }, history: [] };
  },
  // Pure and deterministic: a new state object for a change, the same one otherwise; never mutate `state`.
  call(action, params, state): ShimOutcome<LoyaltyState> {
    const member = params.member as string;
    if (!Object.hasOwn(state.members, member)) return shimError(state, 'not_found', `no member "${member}"`);
    const held = state.members[member];
    if (action === 'balance') return { result: { member, points: held }, state };
    const points = params.points as number;
    const change = action === 'earn' ? points : -points;
    if (held + change < 0) return shimError(state, 'insufficient_funds', `member ${member} holds ${held} points, fewer than ${points}`);
    return {
      result: { member, points: held + change },
      state: { members: { ...state.members, [member]: held + change }, history: [...state.history, { member, change, reason: String(params.reason) }] },
    };
  },
});

export default {
  name: 'example-loyalty-shim',
  setup(host) {
    host.shims.register(loyaltyShim, 'example-loyalty-shim');
  },
} satisfies Plugin;
