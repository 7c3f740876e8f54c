import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../routes.ts';
import { Problem } from '../problems.ts';
import { hasPermission } from '../permissions.ts';

/**
 * Authenticates the caller and checks one permission before any handler runs (service-spec.md, design
 * rule 3). No credential or an invalid one is 401 with `WWW-Authenticate`; a valid one without the
 * permission is 403 naming it.
 */
export function authorize(permission: string): MiddlewareHandler<AppEnv> {
  return async function authorizeMiddleware(c, next) {
    // c.get, not c.var: hono builds a fresh object for every c.var access, and this runs on every request.
    const services = c.get('services');
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
    await next();
  };
}
