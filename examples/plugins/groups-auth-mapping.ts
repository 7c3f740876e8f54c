/**
 * Example: a custom authentication mapping (docs/plugins.md, "A custom auth mapping"), the spec's "extending
 * the AuthManager class through the plugin system".
 *
 * Many identity providers put a user's teams in a `groups` claim rather than in `roles` or `scope`. This
 * plugin overrides `AuthManager.permissionsFromClaims` through pluggable.js `overrides`: it keeps everything the
 * built-in mapping grants (`this.__super__.permissionsFromClaims(claims)`) and adds the role each known group
 * stands for. Unknown groups grant nothing.
 *
 * Load it with `AEH_PLUGINS=./examples/plugins/groups-auth-mapping.ts` or from `aeh.config.ts`.
 */
import type { OverrideThis, Plugin } from '../../core/plugin.ts';
import type { AuthManagerInstance } from '../../core/auth-manager.ts';

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

export default {
  name: 'example-groups-auth-mapping',
  version: '1.0.0',
  overrides: {
    AuthManager: {
      permissionsFromClaims(this: OverrideThis<AuthManagerInstance>, claims: Record<string, unknown>): string[] {
        const granted = new Set(this.__super__.permissionsFromClaims(claims));
        for (const group of groupsOf(claims)) {
          const role = GROUP_ROLES[group.toLowerCase()];
          for (const node of (role && this.permissionsOfRole(role)) || []) granted.add(node);
        }
        return [...granted];
      },
    },
  },
} satisfies Plugin;
