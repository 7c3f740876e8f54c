const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

// Ids are this instance's random prefix and a counter: unique across instances (64 random bits) and in order
// within one, and a tenth of the cost of a random UUID per request. They are identifiers, not secrets. The
// prefix is drawn on first use: workerd refuses random values at module scope.
let prefix: string | undefined;
let counter = 0;

/**
 * The id of a request, echoed in `X-Request-Id` on every response and in problem bodies. A well-formed
 * incoming id is kept so traces can be followed across a proxy; anything else is replaced by a new one
 * (`<16 hex digits of this instance>-<counter in base 36>`).
 */
export function requestIdFor(request: Request): string {
  const incoming = request.headers.get('x-request-id');
  return incoming && SAFE_ID.test(incoming) ? incoming : newId();
}

function newId(): string {
  prefix ??= Array.from(crypto.getRandomValues(new Uint8Array(8)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${prefix}-${(counter++).toString(36)}`;
}
