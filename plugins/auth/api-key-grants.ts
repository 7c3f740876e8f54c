/** What a key grants: its explicit permissions and those of its roles, resolved now (so role changes apply). */
import type { AuthManagerInstance } from '../../core/auth-manager.ts';

export function grantsOf(manager: Pick<AuthManagerInstance, 'permissionsOfRole'>, key: { roles?: string[]; permissions?: string[] }): string[] {
  const granted = new Set(key.permissions ?? []);
  for (const role of key.roles ?? []) for (const node of manager.permissionsOfRole(role) ?? []) granted.add(node);
  return [...granted];
}
