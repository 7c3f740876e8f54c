import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../routes.ts';

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Gives every request an id, echoed in `X-Request-Id` on every response and in problem bodies.
 * A well-formed incoming id is kept so traces can be followed across a proxy; anything else is replaced.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header('x-request-id');
    const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', id);
    await next();
    c.res.headers.set('X-Request-Id', id);
  };
}
