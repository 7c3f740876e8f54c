/**
 * hono's router for the service, remembering the match of each route path without parameters. hono's default
 * router falls back from its RegExpRouter (a map lookup for a path without parameters) to the TrieRouter when
 * one pair of routes is ambiguous to it, and this service has one (`/api/v1/verify/:run_id` beside
 * `/api/v1/verify/suite/:suite_id`): every request then walks the tree, a few microseconds of a hot route such
 * as `GET /api/info`. The answer for a fixed method and path never changes once the routes are added, so it is
 * kept, for the registered paths only (a bounded set, not whatever paths clients send).
 */
import type { Result, Router } from 'hono/router';
import { SmartRouter } from 'hono/router/smart-router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { TrieRouter } from 'hono/router/trie-router';

/** True for a route path without parameters, wildcards or optional parts. */
const isFixedPath = (path: string) => !/[:*?{]/.test(path);
/** The methods whose matches are kept: a client's made-up method must not grow the map. */
const CACHED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** hono's default router, with the matches of fixed route paths remembered. */
export function createStaticRouteCache<T>(): Router<T> {
  const router = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
  const fixedPaths = new Set<string>();
  // By method, then path: the path a request brings is hashed once for both lookups, no key is built.
  const matches = new Map<string, Map<string, Result<T>>>();
  return {
    get name() {
      return `static route cache + ${router.name}`;
    },
    add(method, path, handler) {
      router.add(method, path, handler);
      if (isFixedPath(path)) fixedPaths.add(path);
      matches.clear();
    },
    match(method, path) {
      if (!fixedPaths.has(path) || !CACHED_METHODS.has(method)) return router.match(method, path);
      let byPath = matches.get(method);
      if (!byPath) matches.set(method, (byPath = new Map()));
      let result = byPath.get(path);
      if (!result) byPath.set(path, (result = router.match(method, path)));
      return result;
    },
  };
}
