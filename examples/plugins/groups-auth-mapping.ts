/**
 * Example: a custom authentication mapping (docs/plugins.md, "A custom auth mapping"), the spec's "extending
 * the AuthManager class through the plugin system".
 *
 * Many identity providers put a user's teams in a `groups` claim rather than in `roles` or `scope`. This
 * plugin's `mapClaims` wraps the AuthManager's claim mapping: it keeps everything the mapping loaded before it
 * grants (`next(claims)`) and adds the role each known group stands for. Unknown groups grant nothing.
 *
 * Load it with `AEH_PLUGINS=./examples/plugins/groups-auth-mapping.ts` or from `aeh.config.ts`.
 */
import { definePlugin } from '../../core/plugin-api.ts';

/** Group name (as the identity provider spells it) → role of the contract's table. */
export const GROUP_ROLES: Readonly<Record<string, string>> = {
  'qa-engineers': 'operator',
  compliance: 'auditor',
  'platform-admins': 'supervisor',
  everyone: 'viewer',
};

/** The `groups` claim as a list: an array of names, or one space/comma separated string. */
function groupsOf(claims: Record<string, unknown>): string[] {
  const raw = claims.groups;
  if (typeof raw === 'string') return raw.split(/[\s,]+/).filter(Boolean);
  return Array.isArray(raw) ? raw.filter((group): group is string => typeof group === 'string') : [];
}

export default definePlugin({
  name: 'example-groups-auth-mapping',
  version: '1.0.0',
  // Everything the mapping loaded before grants (`next`), plus the role each known group stands for.
  mapClaims(claims, next, { permissionsOfRole }) {
    const granted = new Set(next(claims));
    for (const group of groupsOf(claims)) {
      const role = GROUP_ROLES[group.toLowerCase()];
      for (const node of (role && permissionsOfRole(role)) || []) granted.add(node);
    }
    return [...granted];
  },
});
