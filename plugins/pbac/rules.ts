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
