/**
 * `http_api`: a simulated HTTP API driven by a route table in the scenario, for services no bundled shim models.
 * Each route answers with a fixed response, or with a sequence (`responses`: the first call gets the first,
 * later calls move on and the last one repeats), which is how a scenario makes a dependency fail once and then
 * recover. Every request is logged in the state, so a scenario can assert how often an endpoint was called.
 */
import { defineShim, type Json, type ShimOutcome } from '../../core/shim.ts';

interface RouteResponse {
  [key: string]: Json;
  status: number;
  body: Json;
}

interface Route {
  [key: string]: Json;
  method: string;
  /** `/orders/:id/refunds`: `:name` matches one segment. */
  path: string;
  responses: RouteResponse[];
}

export interface HttpApiState {
  [key: string]: Json;
  routes: Route[];
  /** Calls so far per route index. */
  hits: number[];
  requests: Array<{ method: string; path: string; status: number; body: Json }>;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const RESPONSE = { type: 'object', required: ['status'], properties: { status: { type: 'integer', minimum: 100, maximum: 599 }, body: {} } };

/** The path parameters when `pattern` matches `path`, else `null`. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const wanted = pattern.split('/').filter(Boolean);
  const given = path.split('?')[0].split('/').filter(Boolean);
  if (wanted.length !== given.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < wanted.length; index++) {
    if (wanted[index].startsWith(':')) params[wanted[index].slice(1)] = decodeURIComponent(given[index]);
    else if (wanted[index] !== given[index]) return null;
  }
  return params;
}

export default defineShim<HttpApiState>({
  name: 'http_api',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A simulated HTTP API answering from a route table in the scenario (fixed answers or a sequence per route).',
  initialStateSchema: {
    type: 'object',
    required: ['routes'],
    properties: {
      routes: {
        type: 'array', maxItems: 500,
        items: { type: 'object', required: ['method', 'path'], properties: { method: { enum: METHODS }, path: { type: 'string', pattern: '^/' }, status: { type: 'integer', minimum: 100, maximum: 599 }, body: {}, responses: { type: 'array', minItems: 1, items: RESPONSE } } },
      },
    },
    additionalProperties: false,
  },
  actions: [
    {
      // Every request leaves the world: the API stands for a service outside it (its path and body are read as an answer).
      name: 'request', description: 'Send an HTTP request to the API; the answer has the status and the JSON body.', egress: true,
      parameters: { type: 'object', required: ['method', 'path'], properties: { method: { enum: METHODS }, path: { type: 'string', pattern: '^/', maxLength: 2000 }, body: {} }, additionalProperties: false },
    },
  ],
  initialState(seed) {
    const given = (seed ?? { routes: [] }) as { routes: Array<{ method: string; path: string; status?: number; body?: Json; responses?: RouteResponse[] }> };
    const routes = given.routes.map((route) => ({ method: route.method, path: route.path, responses: route.responses ?? [{ status: route.status ?? 200, body: route.body ?? null }] }));
    return { routes, hits: routes.map(() => 0), requests: [] };
  },
  call(_action, params, state): ShimOutcome<HttpApiState> {
    const method = params.method as string;
    const path = params.path as string;
    const index = state.routes.findIndex((route) => route.method === method && matchPath(route.path, path) !== null);
    let answer: RouteResponse;
    let hits = state.hits;
    if (index < 0) {
      const pathKnown = state.routes.some((route) => matchPath(route.path, path) !== null);
      answer = pathKnown ? { status: 405, body: { error: 'method not allowed' } } : { status: 404, body: { error: 'not found' } };
    } else {
      const { responses } = state.routes[index];
      answer = responses[Math.min(state.hits[index], responses.length - 1)];
      hits = state.hits.slice();
      hits[index]++;
    }
    const logged = { method, path, status: answer.status, body: (params.body ?? null) as Json };
    // An HTTP error status is the API's answer, not a failure of the call: the agent must read and handle it.
    return { result: { status: answer.status, body: answer.body }, state: { ...state, hits, requests: [...state.requests, logged] } };
  },
});
