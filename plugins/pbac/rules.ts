/** What a PBAC change may not do: name unknown permissions, or leave no role able to change PBAC again. */
import type { FieldError } from '../../core/problems.ts';
import { PERMISSION_NODES, permissionCheck } from '../../core/permissions.ts';
import type { PbacTable } from './table.ts';

const AREAS = new Set(PERMISSION_NODES.map((node) => node.split(':')[0]));
const KNOWN = new Set<string>(PERMISSION_NODES);

/** Errors for permission names that are neither a node, `area:*` nor `*`. */
export function unknownPermissions(nodes: readonly string[], path: string): FieldError[] {
  return nodes.flatMap((node, index) => {
    const [area, action] = node.split(':');
    const known = node === '*' || KNOWN.has(node) || (action === '*' && AREAS.has(area));
    return known ? [] : [{ path: `${path}/${index}`, message: `"${node.slice(0, 64)}" is not a permission (known: ${PERMISSION_NODES.join(', ')}, area:*, *)` }];
  });
}

/** The supervisor role keeps what it needs to undo any change: pbac:configure and identity:manage. */
export function lockOutErrors(table: Pick<PbacTable, 'roles'>): FieldError[] {
  const supervisor = table.roles.supervisor ?? [];
  return ['pbac:configure', 'identity:manage']
    .filter((node) => !permissionCheck(node)(supervisor))
    .map((node) => ({ path: '/permissions', message: `the supervisor role must keep ${node}, or no one could change PBAC or keys again` }));
}

/** A role's nodes in a table, none for a name it does not hold (own properties only: `constructor` is a valid role name). */
export function roleNodes(table: Pick<PbacTable, 'roles'>, role: string): string[] {
  return Object.hasOwn(table.roles, role) ? table.roles[role] : [];
}

/** The nodes of `after` that `before` did not already cover: what a change newly grants. */
export function addedGrants(before: readonly string[], after: readonly string[]): string[] {
  return after.filter((node) => !permissionCheck(node)(before));
}

/**
 * What an editor holding `held` may not grant (issue 25 item 2): the nodes a change adds that the editor does
 * not hold itself. `*` and `area:*` are held only as themselves (or through `*`), so widening a role to `*`
 * needs `*`.
 */
export function beyondEditor(held: readonly string[], added: readonly string[]): string[] {
  return added.filter((node) => !permissionCheck(node)(held));
}

/**
 * The grants a claim-mapping change gives groups beyond what the editor holds, as `group → role: nodes`
 * messages. A group gains the nodes of its new role that its old one did not cover; renaming the groups claim
 * re-points every mapping (other tokens' values become the groups), so then every mapping counts as new.
 */
export function claimGrantsBeyond(held: readonly string[], before: PbacTable, after: Pick<PbacTable, 'claims' | 'roles'>): string[] {
  const renamed = before.claims.groups_claim !== after.claims.groups_claim;
  return Object.entries(after.claims.groups).flatMap(([group, role]) => {
    const previous = renamed || !Object.hasOwn(before.claims.groups, group) ? [] : roleNodes(before, before.claims.groups[group]);
    const beyond = beyondEditor(held, addedGrants(previous, roleNodes(after, role)));
    return beyond.length ? [`${group} → ${role}: ${beyond.slice(0, 5).join(', ')}`] : [];
  });
}
