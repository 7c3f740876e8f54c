import type { AppContext, RateClass } from '../routes.ts';
import type { Services } from '../services.ts';
import { Problem } from '../problems.ts';
import type { RateDecision, RateLimits } from '../guards/rate-limiter.ts';

/**
 * The 429 for a refused request. Returned, not thrown: a refusal must cost no more than an answer (a flood at the
 * limit), and a throw through the pipeline cost a fifth of one.
 */
function refuse(c: AppContext, services: Services, decision: RateDecision, scope: string, client: string): Problem {
  services.telemetry.increment('http.rate_limited');
  // One audit entry per burst: a flood must not turn into a flood of storage writes.
  if (decision.firstRefusal) {
    void services.hooks.emit('audit', {
      at: new Date(services.now()).toISOString(),
      request_id: c.get('requestId'),
      principal: c.get('principal')?.id,
      client,
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      action: 'request',
      outcome: 'refused',
      status: 429,
      detail: `rate_limited:${scope}`,
    });
  }
  return new Problem('rate_limited', {
    detail: `too many ${scope}; retry after ${decision.retryAfterSeconds} s`,
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    extra: { retry_after_s: decision.retryAfterSeconds },
  });
}

/**
 * Brute-force protection, checked before authentication on protected routes: a client address whose failed
 * authentications (401) exhausted `AEH_AUTH_FAILURES_PER_MINUTE` gets 429 for every protected request,
 * valid credential or not, so the answer cannot tell a guess that would have worked. The pipeline counts a
 * failure (`limits.authFailures.consume`) for every 401 a protected route answers.
 */
export function checkAuthFailures(c: AppContext, services: Services, limits: RateLimits, client: string): Problem | undefined {
  const decision = limits.authFailures.peek(client);
  return decision.allowed ? undefined : refuse(c, services, decision, 'failed authentications from this address', client);
}

/**
 * Request-rate limit, checked after authentication: per principal on protected routes
 * (`AEH_RATE_LIMIT_PER_MINUTE`), per client address on public ones (`AEH_PUBLIC_RATE_LIMIT_PER_MINUTE`).
 * 429 `rate_limited` with `Retry-After` (RFC 9110 §10.2.3).
 */
export function limitRequest(c: AppContext, services: Services, limits: RateLimits, rateClass: RateClass, client: string): Problem | undefined {
  if (rateClass === 'none') return undefined;
  const principal = c.get('principal');
  // Each limiter holds one kind of key (principal ids, client addresses), so the keys need no prefix.
  const decision = rateClass === 'protected' && principal ? limits.protected.consume(principal.id) : limits.public.consume(client);
  return decision.allowed ? undefined : refuse(c, services, decision, rateClass === 'protected' ? 'requests for this principal' : 'requests from this address', client);
}
