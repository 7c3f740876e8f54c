/**
 * Permission nodes, the four roles and wildcard matching (api-contract.md, "Authentication and permissions").
 */

/** Every permission node the service knows, grouped as in the contract's role table. */
export const PERMISSION_NODES = [
  'scenarios:read', 'runs:read', 'runs:export', 'metrics:read', 'taxonomy:read', 'system:read',
  'certificates:verify', 'runs:sign', 'audit:read',
  'evaluations:launch', 'scenarios:mutate', 'specs:convert', 'shims:manage', 'catalog:refresh', 'doctor:read',
  'registry:admin', 'identity:manage', 'pbac:configure', 'shims:trust', 'storage:gc', 'runs:cancel-any',
  // A run below the operator's verdict floor (AEH_VERDICT_FLOOR): SUPERVISOR's by default, through `*`.
  'verdict:relax',
] as const;

export type PermissionNode = (typeof PERMISSION_NODES)[number];

const READ_NODES = ['scenarios:read', 'runs:read', 'runs:export', 'metrics:read', 'taxonomy:read', 'system:read'];

/** The contract's role table; role names are matched case-insensitively. */
export const ROLE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  viewer: READ_NODES,
  auditor: [...READ_NODES, 'certificates:verify', 'runs:sign', 'audit:read'],
  operator: [...READ_NODES, 'evaluations:launch', 'scenarios:mutate', 'specs:convert', 'shims:manage', 'catalog:refresh', 'doctor:read'],
  supervisor: ['*'],
});

/** The permissions a role name grants, or `undefined` for an unknown role. */
export function permissionsOfRole(role: string): readonly string[] | undefined {
  const name = role.trim().toLowerCase();
  // Own properties only: a role claim of "constructor" or "__proto__" must not reach Object.prototype.
  return Object.hasOwn(ROLE_PERMISSIONS, name) ? ROLE_PERMISSIONS[name] : undefined;
}

/**
 * The check of one fixed permission: true when `granted` covers it with an exact node, `*`, or an `area:*`
 * wildcard. Matching is case-insensitive because claims come from identity providers with their own
 * conventions. Prepared once per route, since the pipeline checks it on every request; the common grant (`*`,
 * the static key's) then costs one comparison.
 */
export function permissionCheck(required: string): (granted: Iterable<string>) => boolean {
  const wanted = required.toLowerCase();
  const areaWildcard = `${wanted.split(':')[0]}:*`;
  return function covers(granted) {
    for (const node of granted) {
      if (node === '*' || node === wanted) return true;
      const have = node.toLowerCase();
      if (have === wanted || have === areaWildcard) return true;
    }
    return false;
  };
}
