/**
 * A run's addresses. With `AEH_PUBLIC_URL` (the absolute URL the service is reached at, optionally behind a
 * path prefix) they are absolute, so a report read elsewhere (a CI dashboard, a pull-request comment, a saved
 * HTML file) links back to the service; without it they are paths on this service.
 */

/**
 * The public base URL without a trailing slash, or `undefined` when unset. Throws naming the variable when it
 * is not an http(s) URL without credentials, query or fragment (the evaluation plugin refuses the same values).
 */
export function publicBaseUrl(configured: string | undefined): string | undefined {
  const value = configured?.trim();
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
    throw new Error('AEH_PUBLIC_URL must be an http(s) URL without credentials, query or fragment');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The run's addresses, absolute under `base` when it is given. */
export function runLinks(runId: string, base: string | undefined): Record<string, string> {
  const id = encodeURIComponent(runId);
  const at = (path: string) => `${base ?? ''}${path}`;
  return {
    run: at(`/api/v1/runs/${id}`),
    trace: at(`/api/v1/runs/${id}/trace`),
    report: at(`/api/v1/runs/${id}/report`),
    transcript: at(`/api/v1/runs/${id}/transcript`),
    certificate: at(`/v1/certificates/${id}`),
    verify: at(`/api/v1/verify/${id}`),
    jwks: at('/.well-known/jwks.json'),
    console: at(`/runs/${id}`),
  };
}
