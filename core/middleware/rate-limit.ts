import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, RateClass } from '../routes.ts';
import { Problem } from '../problems.ts';
import type { RateDecision, RateLimits } from '../rate-limit.ts';

function refuse(c: Context<AppEnv>, decision: RateDecision, scope: string, client: string): never {
  const services = c.var.services;
  services.telemetry.increment('http.rate_limited');
  // One audit entry per burst: a flood must not turn into a flood of storage writes.
  if (decision.firstRefusal) {
    void services.hooks.emit('audit', {
      at: new Date(services.now()).toISOString(),
      request_id: c.var.requestId,
      principal: c.var.principal?.id,
      client,
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      action: 'request',
      outcome: 'refused',
      status: 429,
      detail: `rate_limited:${scope}`,
    });
  }
  throw new Problem('rate_limited', {
    detail: `too many ${scope}; retry after ${decision.retryAfterSeconds} s`,
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    extra: { retry_after_s: decision.retryAfterSeconds },
  });
}

/**
 * Brute-force protection, mounted before authentication on protected routes: a client address whose failed
 * authentications (401) exhausted `AEH_AUTH_FAILURES_PER_MINUTE` gets 429 for every protected request,
 * valid credential or not, so the answer cannot tell a guess that would have worked.
 */
export function limitAuthFailures(limits: RateLimits): MiddlewareHandler<AppEnv> {
  return async function limitAuthFailuresMiddleware(c, next) {
    const client = limits.clientKey(c.req.raw, c.env);
    const decision = limits.authFailures.peek(client);
    if (!decision.allowed) refuse(c, decision, 'failed authentications from this address', client);
    await next();
    if (c.res.status === 401) limits.authFailures.consume(client);
  };
}

/**
 * Request-rate limit, mounted after authentication: per principal on protected routes
 * (`AEH_RATE_LIMIT_PER_MINUTE`), per client address on public ones (`AEH_PUBLIC_RATE_LIMIT_PER_MINUTE`).
 * 429 `rate_limited` with `Retry-After` (RFC 9110 §10.2.3).
 */
export function limitRequests(limits: RateLimits, rateClass: RateClass): MiddlewareHandler<AppEnv> {
  return async function limitRequestsMiddleware(c, next) {
    if (rateClass !== 'none') {
      const client = limits.clientKey(c.req.raw, c.env);
      const principal = c.var.principal;
      const decision = rateClass === 'protected' && principal
        ? limits.protected.consume(`principal:${principal.id}`)
        : limits.public.consume(`address:${client}`);
      if (!decision.allowed) refuse(c, decision, rateClass === 'protected' ? 'requests for this principal' : 'requests from this address', client);
    }
    await next();
  };
}
