import type { AppContext } from '../routes.ts';
import type { Principal } from '../auth-manager.ts';
import type { Services } from '../services.ts';
import { Problem } from '../problems.ts';
import { permissionCheck } from '../permissions.ts';
import { isPromiseLike, type MaybePromise } from '../maybe-async.ts';

/**
 * `authorizer(permission)` authenticates the caller and checks one permission before any handler runs
 * (service-spec.md, design rule 3). No credential or an invalid one is 401 with `WWW-Authenticate`; a valid one
 * without the permission is 403 naming it. The principal is set on the context before the permission check, so
 * that a 403 is audited under the principal that was refused. Synchronous when authentication is (a static key;
 * see maybe-async.ts), and then it throws its refusals rather than rejecting. `delegated` holds the requests
 * that `services.dispatchAs` sent, with the principal each runs as.
 */
export function authorizer(permission: string, delegated?: WeakMap<Request, Principal>): (c: AppContext, services: Services) => MaybePromise<Principal> {
  const covers = permissionCheck(permission);
  const check = (c: AppContext, principal: Principal | null): Principal => {
    if (!principal) {
      throw new Problem('unauthorized', {
        detail: 'credentials are required: send the API key in X-API-Key (or X-AES-API-KEY), or a bearer token',
        headers: { 'WWW-Authenticate': 'Bearer realm="aeh"' },
      });
    }
    c.set('principal', principal);
    if (!covers(principal.permissions)) {
      throw new Problem('forbidden', { detail: `missing permission "${permission}"`, extra: { permission } });
    }
    return principal;
  };
  return function authorize(c, services) {
    // A request dispatched in-process on someone's behalf (services.dispatchAs) carries its principal; its
    // headers are not read.
    const onBehalf = delegated?.get(c.req.raw);
    if (onBehalf) return check(c, onBehalf);
    const principal = services.auth.authenticate(c.req.raw);
    return isPromiseLike(principal) ? principal.then((found) => check(c, found)) : check(c, principal);
  };
}
