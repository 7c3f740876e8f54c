/**
 * Responses for hot routes. `c.json()` with two or more headers makes hono build a `Headers` object, and the
 * pipeline adding `X-Request-Id` afterwards makes one too; on Node that is a tenth of a small request's cost.
 * A response built here carries the request id from the start in a plain header record, which
 * @hono/node-server writes without building anything, and the pipeline knows not to stamp it again.
 */
import type { AppContext } from './routes.ts';
import { CARRIES_ID } from './problems.ts';

// A mark on the response itself: cheaper per request than a WeakSet entry, and invisible to JSON and headers.
type Marked = Response & { [CARRIES_ID]?: true };

/** A response with its body already serialised: `X-Request-Id` and `Content-Type` set, plus `headers`. */
export function respond(c: AppContext, body: string | Uint8Array<ArrayBuffer> | null, status = 200, contentType = 'application/json', headers?: Record<string, string>): Response {
  const record: Record<string, string> = body === null ? {} : { 'content-type': contentType };
  for (const name in headers) record[name] = headers[name]!;
  record['x-request-id'] = c.get('requestId');
  const response: Marked = new Response(body, { status, headers: record });
  response[CARRIES_ID] = true;
  return response;
}

/** `respond` for a value serialised as JSON. */
export function respondJson(c: AppContext, value: unknown, status = 200, headers?: Record<string, string>): Response {
  return respond(c, JSON.stringify(value), status, 'application/json', headers);
}

/** True for a response `respond` built, which carries the request id already. */
export function carriesRequestId(response: Response): boolean {
  return (response as Marked)[CARRIES_ID] === true;
}
