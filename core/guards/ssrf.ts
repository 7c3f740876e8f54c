/**
 * The SSRF guard (service-spec.md, "Network and file protection"; OWASP SSRF Prevention Cheat Sheet):
 * `services.fetch` for every outbound URL that comes from a request or a scenario.
 *
 * A DNS-lookup hook alone is not enough: IP-literal hosts never reach it and `redirect: 'follow'` walks past
 * it. So the guard checks the WHATWG-parsed host itself, resolves names through the runtime's `net`
 * capability, refuses the URL when ANY resolved address is forbidden (`core/guards/address.ts`), connects to the
 * address it checked (`net.fetchPinned`, no second lookup, no DNS-rebinding window), follows redirects by
 * hand (at most 5, every hop checked again, credentials dropped when the origin changes) and caps the
 * response's size and time.
 *
 * Without `net` (workerd, or tests that mock HTTP with msw) names cannot be resolved safely, so only IP
 * literals (classified directly) and hosts listed in `AEH_ALLOW_HOSTS` are reachable. Listed hosts are
 * exempt from classification and are fetched with the plain fetch (which is what msw intercepts).
 */
import { Problem } from '../problems.ts';
import { classifyAddress, createHostAllowList, deniedHostname, isLocalAddress, normalizeHostname, parseIp, type HostAllowList } from './address.ts';
import type { GuardedFetch, NetAccess, ResolvedAddress } from '../capabilities.ts';

export interface GuardedFetchOptions {
  /** Resolution and pinned connections; without it host names must be allow-listed. */
  net?: NetAccess;
  /** `AEH_ALLOW_HOSTS` entries (names, `*.suffix`, IPs, CIDR blocks, each optionally `:port`). */
  allowHosts: readonly string[];
  /** The service's own listening port (`PORT`; 0 or absent: unknown): never reachable on a local address. */
  servicePort?: number;
  /** The service's bind address (`HOST`), a local address besides loopback and unspecified. */
  serviceHost?: string;
  /** Plain fetch, used for allow-listed hosts and, without `net`, for IP literals. */
  fallbackFetch: typeof fetch;
  /** Whole-exchange deadline, body included, unless a call passes `timeoutMs`. Default 30 s. */
  timeoutMs?: number;
  /** Largest response body, unless a call passes `maxBytes`. Default 10 MiB. */
  maxBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
}

/** Where one hop goes: the pinned address, or `null` for an allow-listed host fetched plainly. */
type Route = { pinned: ResolvedAddress | null };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** Headers that carry no credential and survive a cross-origin redirect; all others are dropped. */
const CROSS_ORIGIN_SAFE_HEADERS = new Set(['accept', 'accept-language', 'content-language', 'content-type', 'user-agent', 'cache-control', 'pragma']);

const ALLOW_HINT = 'if the agent is a trusted service on a private network, list its host (or host:port) in AEH_ALLOW_HOSTS';
const OWN_PORT_HINT = "AEH_ALLOW_HOSTS never opens this service's own listening port: run the agent on another port";

function blocked(detail: string, hint = ALLOW_HINT): Problem {
  return new Problem('ssrf_blocked', { detail, extra: { reason: detail, hint } });
}

/** What `route` needs besides the URL: the compiled allow list and where this service listens. */
interface Policy {
  allowList: HostAllowList;
  servicePort?: number;
  serviceHost?: string;
}

/** The port a URL connects to: its own, else the scheme's default. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function ownPort(url: URL): Problem {
  return blocked(`${url.host} is this service's own listening port`, OWN_PORT_HINT);
}

/**
 * The checks that need no resolution: scheme, host, this service's own port on a local address (never opened
 * by an allow entry), allow-listed hosts, IP literals and always-denied names. Returns the route, or the name
 * still to resolve.
 */
function staticRoute(url: URL, policy: Policy): Route | { name: string; port: number } {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw blocked(`scheme "${url.protocol.slice(0, -1)}" is not allowed; only http and https are`);
  const host = normalizeHostname(url.hostname);
  if (!host) throw blocked('the URL has no host');
  const port = portOf(url);
  const literal = parseIp(host);
  const self = !!policy.servicePort && port === policy.servicePort
    && (literal ? isLocalAddress(host, policy.serviceHost) : deniedHostname(host) !== undefined || host === normalizeHostname(policy.serviceHost ?? ''));
  if (policy.allowList.allowsHost(host, port)) {
    if (self) throw ownPort(url);
    return { pinned: null };
  }
  if (literal) {
    const verdict = classifyAddress(host);
    if (!verdict.allowed) throw blocked(`${url.hostname} is a ${verdict.reason}`);
    if (self) throw ownPort(url);
    return { pinned: { address: verdict.address, family: verdict.family } };
  }
  const denied = deniedHostname(host);
  if (denied) throw blocked(`${host} is ${denied}`);
  if (self) throw ownPort(url);
  return { name: host, port };
}

/**
 * The submission-time check of an agent URL (`AgentCheckContext.checkUrl`): a scheme other than http(s),
 * credentials in the URL, a forbidden IP literal in any spelling WHATWG URL parsing turns into one
 * (`http://2130706433/`, `http://0x7f.1/`) or this service's own port on a local address is a 400 `ssrf_blocked`
 * before a run is queued, with `errors[0].path` naming the field and a `hint` naming `AEH_ALLOW_HOSTS`. Names
 * pass here; the guard resolves and checks them when it connects.
 */
export function checkSubmittedUrl(raw: unknown, field: string, options: { allowHosts: readonly string[]; servicePort?: number; serviceHost?: string }): void {
  if (typeof raw !== 'string') return;
  const refuse = (problem: Problem): never => {
    throw new Problem('ssrf_blocked', { detail: `${field.replace(/^\//, '')}: ${problem.detail}`, errors: [{ path: field, message: problem.detail }], extra: problem.extra });
  };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(blocked('the URL is not an absolute URL'));
  }
  if (url.username || url.password) refuse(blocked('URLs with embedded credentials are refused; send credentials in headers'));
  // Names, `localhost` included, are the connection-time guard's: what they mean can change until then.
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname && !parseIp(url.hostname)) return;
  try {
    staticRoute(url, { allowList: createHostAllowList(options.allowHosts), servicePort: options.servicePort, serviceHost: options.serviceHost });
  } catch (error) {
    if (error instanceof Problem) refuse(error);
    throw error;
  }
}

/** Throws `ssrf_blocked` unless the URL may be fetched; returns how to connect. */
async function route(url: URL, policy: Policy, net: NetAccess | undefined): Promise<Route> {
  const decided = staticRoute(url, policy);
  if (!('name' in decided)) {
    // An allow-listed name on the service's own port may still be this machine: resolve it to find out.
    if (decided.pinned === null && net && policy.servicePort && portOf(url) === policy.servicePort && !parseIp(url.hostname)) {
      const addresses = await net.resolve(normalizeHostname(url.hostname)).catch(() => []);
      if (addresses.some(({ address }) => isLocalAddress(address, policy.serviceHost))) throw ownPort(url);
    }
    return decided;
  }
  const { name: host, port } = decided;
  const allowList = policy.allowList;
  if (!net) throw blocked(`${host} cannot be resolved safely on this runtime; list it in AEH_ALLOW_HOSTS or use an IP address`);
  let addresses: ResolvedAddress[];
  try {
    addresses = await net.resolve(host);
  } catch (error) {
    // Not a policy refusal: the name does not resolve, which callers see as a network error, like fetch's.
    throw new TypeError(`fetch failed: could not resolve ${host}`, { cause: error });
  }
  if (addresses.length === 0) throw new TypeError(`fetch failed: ${host} has no addresses`);
  // Every answer is checked: a resolver returning one public and one private address must not win a race.
  for (const { address } of addresses) {
    if (policy.servicePort === port && isLocalAddress(address, policy.serviceHost)) throw ownPort(url);
    if (allowList.allowsAddress(address, port)) continue;
    const verdict = classifyAddress(address);
    if (!verdict.allowed) throw blocked(`${host} resolves to a ${verdict.reason}`);
  }
  return { pinned: addresses[0] };
}

/** Wraps a body so that reading past `maxBytes` fails, whatever Content-Length claimed. */
function limitBody(response: Response, maxBytes: number, origin: string): Response {
  const tooLarge = () => new Problem('payload_too_large', { detail: `the response from ${origin} is larger than ${maxBytes} bytes` });
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) {
    return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  let seen = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function replayable(body: RequestInit['body']): boolean {
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer
    || body instanceof URLSearchParams || body instanceof Blob || ArrayBuffer.isView(body);
}

/**
 * Builds `services.fetch`. Refusals throw `Problem('ssrf_blocked')` (400, `detail` names the reason);
 * a name that does not resolve throws `TypeError` like fetch; the deadline rejects with a DOMException named
 * `TimeoutError`; an oversized body throws (or errors the stream with) `Problem('payload_too_large')`.
 * `redirect: 'manual'` returns the 3xx as is and `redirect: 'error'` rejects on one.
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const { net, fallbackFetch, timeoutMs: defaultTimeout = 30_000, maxBytes: defaultMaxBytes = 10 * 1024 * 1024, maxRedirects = 5 } = options;
  const policy: Policy = { allowList: createHostAllowList(options.allowHosts), servicePort: options.servicePort || undefined, serviceHost: options.serviceHost };

  return async function guardedFetch(input, init = {}) {
    const { timeoutMs = defaultTimeout, maxBytes = defaultMaxBytes, redirect = 'follow', ...requestInit } = init;
    let url: URL;
    try {
      url = new URL(String(input));
    } catch {
      throw blocked('the outbound URL is not an absolute URL');
    }
    if (url.username || url.password) throw blocked('URLs with embedded credentials are refused; send credentials in headers');
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = requestInit.signal ? AbortSignal.any([requestInit.signal, deadline]) : deadline;
    let method = (requestInit.method ?? 'GET').toUpperCase();
    let body = requestInit.body;
    let headers = new Headers(requestInit.headers);

    for (let hop = 0; ; hop++) {
      const { pinned } = await route(url, policy, net);
      const hopInit: RequestInit = { ...requestInit, method, headers, body, signal, redirect: 'manual' };
      const response = pinned && net ? await net.fetchPinned(url, hopInit, pinned) : await fallbackFetch(url, hopInit);
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || redirect === 'manual' || location === null) return limitBody(response, maxBytes, url.origin);
      await response.body?.cancel().catch(() => undefined);
      if (redirect === 'error') throw new TypeError(`fetch failed: ${url.origin} redirected and redirect is "error"`);
      if (hop >= maxRedirects) throw blocked(`more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw blocked('a redirect named an invalid URL');
      }
      next.username = '';
      next.password = '';
      if (next.origin !== url.origin) {
        // Credentials can sit in any header (Authorization, X-Api-Key, Cookie...): only neutral ones travel on.
        const kept = new Headers();
        headers.forEach((value, name) => {
          if (CROSS_ORIGIN_SAFE_HEADERS.has(name)) kept.set(name, value);
        });
        headers = kept;
      }
      // Fetch standard, "HTTP-redirect fetch": 303 (and 301/302 after POST) become a GET without a body.
      if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      } else if (!replayable(body)) {
        throw new TypeError('fetch failed: cannot resend a streamed body after a 307/308 redirect');
      }
      url = next;
    }
  };
}
