const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * The id of a request, echoed in `X-Request-Id` on every response and in problem bodies. A well-formed
 * incoming id is kept so traces can be followed across a proxy; anything else is replaced.
 */
export function requestIdFor(request: Request): string {
  const incoming = request.headers.get('x-request-id');
  return incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
}
