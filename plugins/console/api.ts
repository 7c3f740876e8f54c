/**
 * The console reads and writes through the public API in-process (`services.dispatch`), forwarding the
 * caller's own credential, so it shows exactly what the API answers and enforces the same permissions.
 */
import type { AppContext } from '../../core/routes.ts';
import { Problem } from '../../core/problems.ts';

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-aes-api-key'];

/** Calls the API as the current caller; returns the parsed JSON body and status. */
export async function callApi<T = any>(c: AppContext, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const headers = new Headers({ 'x-request-id': c.var.requestId });
  for (const name of CREDENTIAL_HEADERS) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  const response = await c.var.services.dispatch(new Request(new URL(path, 'http://console.internal'), {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  }));
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: leave the text
  }
  if (response.status === 401) throw new Problem('unauthorized', { detail: 'sign in again', headers: { 'WWW-Authenticate': 'Bearer realm="aeh"' } });
  return { status: response.status, body: body as T };
}

/** Builds a query string from the defined values. */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
