/**
 * Work done later on someone's behalf (a schedule's firing, a suite launch, a queued or resumed run): what is
 * stored of the person who asked, and who the work may act as when it runs (`services.dispatchAs`). It acts as
 * them, with only the one permission the work needs, and only while they still exist and still hold it, asked
 * again at each firing (`AuthManager.currentPrincipal`: a revoked or expired key, a role that lost the node, an
 * identity provider's claims that no longer map to it), so a revoked grant stops the work instead of outliving it.
 */
import type { AuthManagerInstance, Principal, StoredPrincipal } from './auth-manager.ts';
import { permissionCheck } from './permissions.ts';

/** The principal who asked, as stored with the work. Never shown by the API: claims may be personal. */
export type StoredCreator = StoredPrincipal;

/** What to store of `principal` with work that will run on their behalf. */
export function storedCreator(principal: Principal): StoredCreator {
  return { id: principal.id, provider: principal.provider, permissions: [...principal.permissions], ...(principal.claims ? { claims: principal.claims } : {}) };
}

/**
 * Who the work may act as now, holding only `permission`, or why it may not. Work stored before creators were
 * kept names only `createdBy`: the static key's can be trusted to act as it did, anyone else's cannot.
 * @param since when the work was asked for (its `created_at`)
 */
export async function actingPrincipal(
  auth: Pick<AuthManagerInstance, 'currentPrincipal'>,
  creator: StoredCreator | undefined,
  createdBy: string | null | undefined,
  permission: string,
  since: string,
): Promise<{ principal: Principal } | { refused: string }> {
  const who = creator ?? (createdBy === 'static-key' ? { id: 'static-key', provider: 'static-key', permissions: ['*'] } : undefined);
  if (!who) return { refused: 'it does not record who created it' };
  const holds = permissionCheck(permission);
  if (!holds(who.permissions)) return { refused: `its creator ${who.id} did not hold ${permission}` };
  const current = await auth.currentPrincipal(who, since);
  if ('refused' in current) return current;
  const { principal } = current;
  if (!holds(principal.permissions)) return { refused: who.claims ? `the claims of its creator ${who.id} no longer grant ${permission}` : `its creator ${principal.id} no longer holds ${permission}` };
  // The claims go along (never the permissions they map to), so a run it queues is asked again when it starts.
  return { principal: { id: principal.id, provider: principal.provider, permissions: [permission], ...(principal.claims ? { claims: principal.claims } : {}), ...(principal.formerId ? { formerId: principal.formerId } : {}) } };
}
