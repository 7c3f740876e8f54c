/**
 * The one error type of the service and the one catalogue of its codes (RFC 9457 problem details).
 * Every failure a client can see is a `Problem`; `toResponse()` renders `application/problem+json`.
 * Unexpected errors never reach the client as themselves: `app.ts` turns them into a generic `internal`.
 */

/**
 * The mark of a response that carries its request id, so that the pipeline does not stamp it again: on the
 * responses core/respond.ts builds and on rendered problems. Here because this file imports nothing.
 */
export const CARRIES_ID = Symbol('aeh.carriesRequestId');

/** Every code the service answers with, its HTTP status and title (api-contract.md, "Errors"). */
export const PROBLEM_CATALOGUE = {
  validation_failed: { status: 400, title: 'Validation failed' },
  invalid_json: { status: 400, title: 'Body is not valid JSON' },
  bad_request: { status: 400, title: 'Bad request' },
  ssrf_blocked: { status: 400, title: 'Outbound address refused' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  path_outside_jail: { status: 403, title: 'Path outside the file jail' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  run_deleted: { status: 410, title: 'Run deleted by retention' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  spec_parse_failed: { status: 422, title: 'Specification could not be parsed' },
  spec_too_complex: { status: 422, title: 'Specification too complex to convert' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key used for another request' },
  budget_exceeded: { status: 422, title: 'Work ran past its budget' },
  rate_limited: { status: 429, title: 'Too many requests' },
  quota_exceeded: { status: 429, title: 'Quota exceeded' },
  internal: { status: 500, title: 'Internal error' },
  not_implemented: { status: 501, title: 'Not available on this runtime' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEM_CATALOGUE;

/** One entry of `errors[]` on a `validation_failed` problem. */
export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemOptions {
  /** Human-readable explanation specific to this occurrence. */
  detail?: string;
  /** Field errors for `validation_failed`. */
  errors?: FieldError[];
  /** Extra members rendered into the body (for example `pitfalls`, `known_types`). */
  extra?: Record<string, unknown>;
  /** Extra response headers (for example `Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** The underlying error, logged but never rendered. */
  cause?: unknown;
}

/** An error with a stable code from the catalogue, rendered as RFC 9457 problem details. */
export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, options: ProblemOptions = {}) {
    const entry = PROBLEM_CATALOGUE[code];
    // No stack: a Problem is an answer, not a bug; its `detail` says what went wrong, and a stack is never
    // rendered or logged (a cause keeps its own). Capturing one was most of a refusal's cost: a 429 flood cost
    // twice what serving the same requests did.
    const limit = Error.stackTraceLimit;
    if (typeof limit === 'number') Error.stackTraceLimit = 0;
    super(options.detail ?? entry.title, { cause: options.cause });
    if (typeof limit === 'number') Error.stackTraceLimit = limit;
    this.name = 'Problem';
    this.code = code;
    this.status = entry.status;
    this.title = entry.title;
    this.detail = options.detail ?? entry.title;
    this.errors = options.errors;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /** The problem body, with the request id of the response that carries it. */
  toJSON(requestId?: string): Record<string, unknown> {
    // Extra members come first so they can never replace the standard ones (a `status` or `code` in `extra`).
    // Not one literal after a spread of `extra`: Node 20's V8 built that in ~20 µs, most of a refusal's cost.
    const body: Record<string, unknown> = {};
    for (const name of Object.keys(this.extra)) if (name !== '__proto__') body[name] = this.extra[name];
    Object.assign(body, { type: `https://aeh.dev/problems/${this.code}`, title: this.title, status: this.status, detail: this.detail, code: this.code, request_id: requestId });
    if (this.errors) body.errors = this.errors;
    return body;
  }

  /** Renders `application/problem+json` with `X-Request-Id`. */
  toResponse(requestId?: string): Response {
    // A plain header record, as core/respond.ts builds for hot routes: a refusal must not cost more than an
    // answer (a 429 flood), and a `Headers` object plus stamping the id afterwards cost a third of one.
    const record: Record<string, string> = {};
    for (const name in this.headers) record[name.toLowerCase()] = this.headers[name]!;
    record['content-type'] = 'application/problem+json';
    if (requestId) record['x-request-id'] = requestId;
    const response = new Response(JSON.stringify(this.toJSON(requestId)), { status: this.status, headers: record });
    if (requestId) (response as Response & Record<symbol, boolean>)[CARRIES_ID] = true;
    return response;
  }
}

/** Shorthand for the 404 every lookup answers with. */
export function notFound(what: string): Problem {
  return new Problem('not_found', { detail: `${what} not found` });
}

/** True for a `Problem` (also across module copies, by shape). */
export function isProblem(error: unknown): error is Problem {
  return error instanceof Problem || (typeof error === 'object' && error !== null && (error as Problem).name === 'Problem' && typeof (error as Problem).code === 'string' && typeof (error as Problem).toResponse === 'function');
}
