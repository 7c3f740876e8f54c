import type { AppContext } from '../routes.ts';
import type { Principal } from '../auth-manager.ts';
import type { Services } from '../services.ts';
import { Problem } from '../problems.ts';
import { hasPermission } from '../permissions.ts';

/**
 * Authenticates the caller and checks one permission before any handler runs (service-spec.md, design
 * rule 3). No credential or an invalid one is 401 with `WWW-Authenticate`; a valid one without the
 * permission is 403 naming it. The principal is set on the context before the permission check, so that
 * a 403 is audited under the principal that was refused.
 */
export async function authorize(c: AppContext, services: Services, permission: string): Promise<Principal> {
  const principal = await services.auth.authenticate(c.req.raw);
  if (!principal) {
    throw new Problem('unauthorized', {
      detail: 'credentials are required: send the API key in X-API-Key (or X-AES-API-KEY), or a bearer token',
      headers: { 'WWW-Authenticate': 'Bearer realm="aeh"' },
    });
  }
  c.set('principal', principal);
  if (!hasPermission(principal.permissions, permission)) {
    throw new Problem('forbidden', { detail: `missing permission "${permission}"`, extra: { permission } });
  }
  return principal;
}
