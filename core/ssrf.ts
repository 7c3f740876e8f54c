/**
 * SSRF guard for outbound fetches whose URL comes from a request or a scenario.
 * (Foundation version: scheme check only; the identity-and-guards work replaces it with address
 * classification, pinned connections and hand-followed redirects.)
 */
import { Problem } from './problems.ts';
import type { GuardedFetch, NetAccess } from './runtime.ts';

export interface GuardedFetchOptions {
  net?: NetAccess;
  allowHosts: string[];
  fallbackFetch: typeof fetch;
}

export function createGuardedFetch({ fallbackFetch }: GuardedFetchOptions): GuardedFetch {
  return async function guardedFetch(url, init = {}) {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new Problem('ssrf_blocked', { detail: `scheme ${target.protocol} is not allowed` });
    }
    return fallbackFetch(target, init);
  };
}
