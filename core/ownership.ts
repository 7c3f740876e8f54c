/**
 * Whose a stored record is (a schedule, an idempotent submission): the principal whose stable id it names. A
 * record written before ids were stable names the principal's former id (an API key's `api-key|<name>`, a name
 * a later key may reuse), so it counts as the principal's only when written after the principal came to be:
 * names are unique among live keys, so the live key that was older than the record is the one that wrote it
 * (issue 25 item 10).
 */
import type { Principal } from './auth-manager.ts';

/** True when the record owned by `owner`, written at `writtenAt` (ISO time), belongs to `principal`. */
export function ownsRecord(principal: Pick<Principal, 'id' | 'formerId'>, owner: string | null | undefined, writtenAt: string | undefined): boolean {
  if (!owner) return false;
  if (owner === principal.id) return true;
  const former = principal.formerId;
  if (!former || owner !== former.id || writtenAt === undefined) return false;
  return Date.parse(writtenAt) >= Date.parse(former.since);
}
