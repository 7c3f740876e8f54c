/**
 * One route's request pipeline, run as a single hono handler: request id, services, brute-force check,
 * authentication and permission, rate limit, audit, JSON body, then the plugin's handler. The steps are plain
 * calls in one async function rather than a chain of hono middleware: each async middleware layer costs a
 * promise chain per request, and six of them cost a quarter of a bare hono app's throughput
 * (docs/bench-foundation.md).
 */
import type { Handler } from 'hono';
import type { AppContext, AppEnv, RouteDefinition } from '../routes.ts';
import type { AuditEntry } from '../hooks.ts';
import type { Principal } from '../auth-manager.ts';
import type { Services } from '../services.ts';
import { Problem, isProblem } from '../problems.ts';
import { consoleLogger } from '../capabilities.ts';
import type { RateLimits } from '../guards/rate-limiter.ts';
import { requestIdFor } from './request-id.ts';
import { authorizer } from './authorize.ts';
import { checkAuthFailures, limitRequest } from './throttle.ts';
import { readJsonBody } from './json-body.ts';
import { carriesRequestId } from '../respond.ts';
import { andThen, type MaybePromise } from '../maybe-async.ts';

/** What every route's pipeline shares: the started services, the limiters, and the requests already audited. */
export interface Pipeline {
  /** The services once started, without waiting; `undefined` while starting. */
  started(): Services | undefined;
  /** Waits for start; rejects with `unavailable` when the service failed to start. */
  services(): Promise<Services>;
  maxBodyBytes: number;
  limits: RateLimits;
  /** Requests whose refusal (401, 403, SSRF) is already on the audit trail. */
  audited: WeakSet<Request>;
  /** In-process requests sent on a principal's behalf (`services.dispatchAs`), with that principal. */
  delegated: WeakMap<Request, Principal>;
}

/** Builds the pipeline state over the app's start-up promise. */
export function createPipeline(ready: Promise<Services>, limits: RateLimits, maxBodyBytes: number): Pipeline {
  let started: Services | undefined;
  ready.then((services) => { started = services; }, () => undefined);
  return {
    started: () => started,
    async services() {
      try {
        return await ready;
      } catch (error) {
        throw new Problem('unavailable', { detail: 'the service failed to start; see its log', cause: error });
      }
    },
    maxBodyBytes,
    limits,
    audited: new WeakSet(),
    delegated: new WeakMap(),
  };
}

/**
 * Turns anything thrown while answering into the response the client gets: a Problem as itself (refusals
 * audited once), anything else as a generic `internal` naming only the request id.
 */
export function errorResponse(error: unknown, c: AppContext, pipeline: Pipeline): Response {
  const services = c.get('services') as Services | undefined;
  const requestId = c.get('requestId') ?? requestIdFor(c.req.raw);
  if (isProblem(error)) {
    if ((error.status === 401 || error.status === 403 || error.code === 'ssrf_blocked') && services) {
      services.telemetry.increment('http.refused');
      pipeline.audited.add(c.req.raw);
      void services.hooks.emit('audit', {
        at: new Date(services.now()).toISOString(),
        request_id: requestId,
        principal: c.get('principal')?.id,
        client: pipeline.limits.clientKey(c.req.raw, c.env),
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        action: 'request',
        outcome: 'refused',
        status: error.status,
        detail: error.code,
      });
    }
    if (error.status >= 500 && error.cause) services?.logger.warn(error.detail, { request_id: requestId, cause: String((error.cause as Error)?.message ?? error.cause) });
    return error.toResponse(requestId);
  }
  (services?.logger ?? consoleLogger()).error('unhandled error', {
    request_id: requestId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  services?.telemetry.increment('http.errors');
  return new Problem('internal', { detail: `an internal error occurred; quote request id ${requestId}` }).toResponse(requestId);
}

async function audit(c: AppContext, services: Services, pipeline: Pipeline, action: string, response: Response): Promise<void> {
  if (pipeline.audited.has(c.req.raw)) return; // errorResponse already wrote the refusal
  const entry: AuditEntry = {
    at: new Date(services.now()).toISOString(),
    request_id: c.get('requestId'),
    principal: c.get('principal')?.id,
    client: pipeline.limits.clientKey(c.req.raw, c.env),
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    action,
    outcome: response.status < 400 ? 'ok' : 'error',
    status: response.status,
    ...c.get('auditFacts'),
  };
  await services.hooks.emit('audit', entry);
}

/**
 * The hono handler serving one route definition. It stays synchronous for as long as every step does (a static
 * key, a handler answering from memory), so such a request is answered without a turn of the event loop; the
 * first step that returns a promise carries the rest over to it.
 */
export function routeHandler(route: RouteDefinition, pipeline: Pipeline): Handler<AppEnv> {
  const { permission } = route;
  const rateClass = route.rateClass ?? (permission ? 'protected' : 'public');
  // Every authenticated mutation is audited, named or not; the trail covers the body parser so that malformed
  // attempts (400/413/415) are on record too.
  const action = route.audit ?? (permission && route.method !== 'GET' ? `${route.method} ${route.path}` : undefined);
  const { limits } = pipeline;
  const authorize = permission ? authorizer(permission, pipeline.delegated) : undefined;

  /** The last step: counts a failed authentication and stamps the request id. */
  function finish(c: AppContext, response: Response): Response {
    if (permission && response.status === 401) limits.authFailures.consume(limits.clientKey(c.req.raw, c.env));
    if (carriesRequestId(response)) return response;
    try {
      response.headers.set('X-Request-Id', c.get('requestId'));
      return response;
    } catch {
      // A response with immutable headers (one a handler passed through from fetch): answer a copy.
      const copy = new Response(response.body, response);
      copy.headers.set('X-Request-Id', c.get('requestId'));
      return copy;
    }
  }
  const fail = (c: AppContext) => (error: unknown) => finish(c, errorResponse(error, c, pipeline));

  /** The body and the plugin's handler; what they throw becomes the response (which the audit then records). */
  function answer(c: AppContext): MaybePromise<Response> {
    const respondWithError = (error: unknown) => errorResponse(error, c, pipeline);
    if (route.body) return readJsonBody(c, route.body, pipeline.maxBodyBytes).then((body) => { c.set('body', body); return route.handler(c); }).catch(respondWithError);
    return andThen(undefined, () => route.handler(c), respondWithError);
  }

  /** From the rate limit on: the principal, if any, is known. */
  function afterAuthentication(c: AppContext, services: Services, client: string): MaybePromise<Response> {
    const refused = limitRequest(c, services, limits, rateClass, client);
    if (refused) return finish(c, refused.toResponse(c.get('requestId')));
    const response = answer(c);
    if (!action) return andThen(response, (done) => finish(c, done), fail(c));
    return andThen(response, (done) => audit(c, services, pipeline, action, done).then(() => finish(c, done)), fail(c));
  }

  function serve(c: AppContext, services: Services): MaybePromise<Response> {
    try {
      c.set('services', services);
      services.telemetry.increment('http.requests');
      const client = rateClass !== 'none' || authorize ? limits.clientKey(c.req.raw, c.env) : 'unknown';
      if (!authorize) return afterAuthentication(c, services, client);
      const locked = checkAuthFailures(c, services, limits, client);
      if (locked) return finish(c, locked.toResponse(c.get('requestId')));
      return andThen(authorize(c, services), () => afterAuthentication(c, services, client), fail(c));
    } catch (error) {
      return fail(c)(error);
    }
  }

  return function handleRoute(c) {
    c.set('requestId', requestIdFor(c.req.raw));
    const services = pipeline.started();
    return services ? serve(c, services) : pipeline.services().then((started) => serve(c, started), fail(c));
  };
}
