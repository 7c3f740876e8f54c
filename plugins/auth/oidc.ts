/**
 * OAuth2/OIDC JWT bearer tokens (service-spec.md, "OAuth2/OIDC JWT bearer tokens"; RFC 7519, RFC 8725 JWT
 * BCP, RFC 6750): a second AuthManager provider, next to the static key, built on jose.
 *
 * - One remote key set per app (`OIDC_JWKS_URL`), cached for `OIDC_JWKS_CACHE_TTL` seconds (jose's own default
 *   is 10 minutes); an unknown `kid` triggers at most one refresh per 30 s cooldown; while the key server is
 *   failing, refreshes back off for 5 s so a flood of tokens cannot become a flood of key fetches.
 * - RS256/384/512 and ES256/384/512 only; `exp` required; 10 s clock-skew leeway; `OIDC_ISSUER` and
 *   `OIDC_AUDIENCE` checked when set (a warning at start and in the doctor when they are not).
 * - Refused before any cryptography: tokens over 8 KiB, anything but a three-part compact JWS, other
 *   algorithms (`none`, HS*, PS*), and headers that name or embed keys (`jwk`, `jku`, `x5u`, `x5c`): keys come
 *   from the configured set only, never from a location a token names.
 * - The key server being down does not take the service down: cached keys keep working until their TTL, then
 *   401; when no key was ever fetched the answer is 503 `unavailable`.
 * - The principal is `iss|sub`, never the token: ECDSA signatures and base64 padding let one token be
 *   written several ways, so nothing is keyed on the token string.
 * - Verified tokens are remembered (`OIDC_VERIFIED_CACHE_SIZE`, default 10 000, 0 turns it off) under their
 *   payload segment (the claims as sent: not a credential without the signature), with the exact bytes that
 *   verified: a hit needs the same bytes (compared in constant time), a still-fresh key set of the same
 *   generation, and passes the time checks again, so it is equivalent to verifying again, without the
 *   signature's cost. Another spelling of the same token is simply a miss and is verified in full. A hit is
 *   answered synchronously, so a remembered token costs the request pipeline no turn of the event loop.
 */
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { isPromiseLike, type MaybePromise } from '../../core/maybe-async.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import { Problem } from '../../core/problems.ts';
import { parseJson } from '../../core/json.ts';
import type { AuthProvider, Credential, Principal } from '../../core/auth-manager.ts';
import type { CheckResult } from '../../core/services.ts';

/** Algorithms accepted (service-spec.md, "Validation rules" 3). */
export const OIDC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];
/** Largest bearer token looked at. */
export const MAX_TOKEN_BYTES = 8 * 1024;
/** Leeway for `exp`, `nbf` and `iat` (service-spec.md, "Limits"). */
export const CLOCK_TOLERANCE_SECONDS = 10;
/** Header parameters that carry or point at keys (RFC 7515 §4.1.3–4.1.6); never trusted. */
const KEY_BEARING_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'];
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UNKNOWN_KID_COOLDOWN_MS = 30_000;
const OUTAGE_BACKOFF_MS = 5_000;
const JWKS_TIMEOUT_MS = 5_000;
/** jose codes that mean "this token is not valid", as opposed to "the keys could not be fetched". */
const TOKEN_ERROR_CODES = new Set([
  'ERR_JWT_CLAIM_VALIDATION_FAILED', 'ERR_JWT_EXPIRED', 'ERR_JOSE_ALG_NOT_ALLOWED', 'ERR_JOSE_NOT_SUPPORTED', 'ERR_JWS_INVALID',
  'ERR_JWT_INVALID', 'ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'ERR_JWK_INVALID',
]);

/** A token that verified: its exact text, claims, and the key-set generation that verified it. */
interface VerifiedToken {
  token: string;
  payload: JWTPayload;
  generation: number;
}

/** The middle segment of a compact JWS (its payload as sent), or '' when there is none. */
function payloadSegment(token: string): string {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  return second > first + 1 ? token.slice(first + 1, second) : '';
}

/** Equality in time that depends on the lengths only, never on where the texts differ. */
function sameText(left: string, right: string): boolean {
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let index = 0; index < length; index++) difference |= (left.charCodeAt(index) | 0) ^ (right.charCodeAt(index) | 0);
  return difference === 0;
}

/** exp/nbf checks with the leeway, for a cache hit (iss/aud/alg cannot differ: the bytes are the same). */
function timely(payload: JWTPayload, nowSeconds: number): boolean {
  if (typeof payload.exp !== 'number' || payload.exp + CLOCK_TOLERANCE_SECONDS <= nowSeconds) return false;
  return typeof payload.nbf !== 'number' || payload.nbf - CLOCK_TOLERANCE_SECONDS <= nowSeconds;
}

export interface OidcVerifierOptions {
  jwksUrl: URL;
  issuer?: string;
  /** One audience or several (comma list in `OIDC_AUDIENCE`). */
  audience?: string[];
  cacheTtlSeconds: number;
  /** Verified tokens remembered (0: every request verifies its signature). */
  verifiedCacheSize?: number;
  /** Fetch for the key set (an operator-trusted URL: not SSRF-guarded). Looked up per call. */
  fetch: () => typeof fetch;
}

/** A key-set client and the token checks built on it. */
export interface OidcVerifier {
  /** The verified claims: at once for a remembered token, else a promise; failures are always rejections. */
  verify(token: string): MaybePromise<JWTPayload>;
  /** True once a key set was fetched successfully (it may have expired since). */
  everFetched(): boolean;
  /** Doctor view: configuration warnings and whether the key server answers. */
  health(): Promise<Omit<CheckResult, 'id'>>;
  /** Fetches the key set again now (the scheduled refresh), so rotations are picked up before the cache TTL. */
  refresh(): Promise<void>;
}

function unauthorized(detail: string): Problem {
  const description = detail.replace(/["\\]/g, "'").slice(0, 200);
  return new Problem('unauthorized', {
    detail,
    headers: { 'WWW-Authenticate': `Bearer realm="aeh", error="invalid_token", error_description="${description}"` },
  });
}

function isTokenError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && TOKEN_ERROR_CODES.has((error as { code?: string }).code ?? '');
}

/** Builds the verifier; the key server is contacted on first use, not here. */
export function createOidcVerifier(options: OidcVerifierOptions): OidcVerifier {
  let failedAt = Number.NEGATIVE_INFINITY;
  let lastFailure = '';
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let generation = 0;
  const verified = new Map<string, VerifiedToken>();
  const verifiedCacheSize = options.verifiedCacheSize ?? 10_000;

  // Wraps the key-set fetch to remember outages and back off while they last.
  const keySetFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (Date.now() - failedAt < OUTAGE_BACKOFF_MS) throw new Error(`key server failing, backing off: ${lastFailure}`);
    try {
      const response = await options.fetch()(url, init);
      const text = response.status === 200 ? await response.text() : '';
      const keys = text ? (parseJson(text) as { keys?: unknown }).keys : undefined;
      if (!Array.isArray(keys)) throw new Error(response.status === 200 ? 'the key set is not a JWKS document' : `HTTP ${response.status}`);
      fetchedAt = Date.now();
      generation += 1; // keys may have been rotated or withdrawn: earlier verifications no longer count
      return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (error) {
      failedAt = Date.now();
      lastFailure = (error as Error).message?.slice(0, 200) ?? String(error);
      throw error;
    }
  };
  const jwks = createRemoteJWKSet(options.jwksUrl, {
    cacheMaxAge: options.cacheTtlSeconds * 1000,
    cooldownDuration: UNKNOWN_KID_COOLDOWN_MS,
    timeoutDuration: JWKS_TIMEOUT_MS,
    [customFetch]: keySetFetch,
  });

  /** The full check: format, header, signature against the key set, claims; remembered when it passes. */
  async function verifyInFull(token: string): Promise<JWTPayload> {
    if (token.length > MAX_TOKEN_BYTES) throw unauthorized(`the bearer token is larger than ${MAX_TOKEN_BYTES} bytes`);
    if (!COMPACT_JWS.test(token)) throw unauthorized('the bearer token is neither the API key nor a compact JWS (header.payload.signature)');
    const key = verifiedCacheSize > 0 ? payloadSegment(token) : '';
    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(token) as Record<string, unknown>;
    } catch {
      throw unauthorized('the token header is not valid base64url JSON');
    }
    const embedded = KEY_BEARING_HEADERS.filter((name) => name in header);
    if (embedded.length) throw unauthorized(`keys named or embedded in the token header (${embedded.join(', ')}) are refused`);
    if (typeof header.alg !== 'string' || !OIDC_ALGORITHMS.includes(header.alg)) {
      throw unauthorized(`algorithm ${JSON.stringify(String(header.alg)).slice(0, 40)} is not accepted; use one of ${OIDC_ALGORITHMS.join(', ')}`);
    }
    try {
      const { payload } = await jwtVerify(token, jwks, {
        algorithms: OIDC_ALGORITHMS,
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      });
      if (key) {
        verified.delete(key);
        while (verified.size >= verifiedCacheSize) verified.delete(verified.keys().next().value as string);
        verified.set(key, { token, payload: Object.freeze(payload), generation });
      }
      return payload;
    } catch (error) {
      if (isTokenError(error)) throw unauthorized(`invalid bearer token: ${(error as Error).message}`);
      if (!jwks.jwks()) {
        throw new Problem('unavailable', {
          detail: 'the OIDC key set (OIDC_JWKS_URL) could not be fetched; retry later',
          headers: { 'Retry-After': String(Math.ceil(OUTAGE_BACKOFF_MS / 1000)) },
          cause: error,
        });
      }
      throw unauthorized('the token cannot be verified: the cached signing keys expired and the key server does not answer');
    }
  }

  return {
    everFetched: () => jwks.jwks() !== undefined,
    verify(token) {
      if (verifiedCacheSize > 0) {
        const hit = verified.get(payloadSegment(token));
        if (hit && hit.generation === generation && jwks.fresh && sameText(hit.token, token) && timely(hit.payload, Math.floor(Date.now() / 1000))) {
          return hit.payload;
        }
      }
      return verifyInFull(token);
    },
    async refresh() {
      await jwks.reload();
    },
    async health() {
      const warnings: string[] = [];
      if (!options.issuer) warnings.push('OIDC_ISSUER is unset: tokens from any issuer signed by these keys are accepted');
      if (!options.audience?.length) warnings.push('OIDC_AUDIENCE is unset: tokens minted for any other service sharing these keys are accepted');
      if (options.jwksUrl.protocol !== 'https:') warnings.push('OIDC_JWKS_URL is not https');
      const hint = 'set OIDC_ISSUER and OIDC_AUDIENCE to your identity provider\'s issuer and this service\'s audience';
      try {
        await jwks.reload();
      } catch {
        const cachedFor = Math.max(0, Math.round((fetchedAt + options.cacheTtlSeconds * 1000 - Date.now()) / 1000));
        return jwks.fresh
          ? { status: 'warn', message: `the key server does not answer (${lastFailure}); cached keys stay valid for ${cachedFor} s`, hint: 'check OIDC_JWKS_URL and the identity provider' }
          : { status: 'fail', message: `the key server does not answer (${lastFailure}) and no valid keys are cached: bearer tokens are refused`, hint: 'check OIDC_JWKS_URL and the identity provider' };
      }
      const count = (jwks.jwks()?.keys ?? []).length;
      if (warnings.length) return { status: 'warn', message: `${count} signing key(s) fetched; ${warnings.join('; ')}`, hint };
      return { status: 'ok', message: `${count} signing key(s) fetched from ${options.jwksUrl.origin}; issuer and audience are checked` };
    },
  };
}

/** The principal of a verified token: `iss|sub`, permissions from its claims. */
function principalOf(payload: JWTPayload, permissions: string[]): Principal {
  const claims = payload as Record<string, unknown>;
  const subject = [payload.sub, claims.client_id, claims.azp].find((value): value is string => typeof value === 'string' && value.length > 0) ?? 'anonymous';
  return { id: `${payload.iss ?? ''}|${subject}`, provider: 'oidc', permissions, claims };
}

function jwksUrlOf(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`OIDC_JWKS_URL "${raw.slice(0, 100)}" is not a URL; set it to your identity provider's jwks_uri`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('OIDC_JWKS_URL must be an https URL');
  return url;
}

function verifiedCacheSizeOf(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 10_000;
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 0 || size > 1_000_000) throw new Error(`OIDC_VERIFIED_CACHE_SIZE must be an integer from 0 to 1000000, got "${raw}"`);
  return size;
}

function setup(host: PluginHost): void {
  const { oidc } = host.config;
  if (!oidc.jwksUrl) {
    host.doctorChecks.register({ id: 'oidc', run: async () => ({ status: 'ok', message: 'OIDC is not configured (OIDC_JWKS_URL unset): only the static key is accepted' }) }, 'auth-oidc');
    return;
  }
  const verifier = createOidcVerifier({
    jwksUrl: jwksUrlOf(oidc.jwksUrl),
    issuer: oidc.issuer,
    audience: oidc.audience?.split(',').map((item) => item.trim()).filter(Boolean),
    cacheTtlSeconds: oidc.cacheTtlSeconds,
    verifiedCacheSize: verifiedCacheSizeOf(host.config.env.OIDC_VERIFIED_CACHE_SIZE),
    fetch: () => host.capabilities.fetch ?? globalThis.fetch,
  });
  // A remembered token hands back the same frozen payload, so its principal is mapped from claims only once.
  const principals = new WeakMap<JWTPayload, Principal>();
  const provider: AuthProvider = {
    name: 'oidc',
    authenticate(credential: Credential, manager) {
      // Only `Authorization: Bearer` carries JWTs; a token in X-API-Key or ?apiKey= is not looked at.
      if (credential.source !== 'authorization') return null;
      const principalFor = (payload: JWTPayload): Principal => {
        let principal = principals.get(payload);
        if (!principal) {
          const permissions = Object.freeze(manager.permissionsFromClaims(payload as Record<string, unknown>)) as string[];
          principal = Object.freeze(principalOf(payload, permissions));
          principals.set(payload, principal);
        }
        return principal;
      };
      const payload = verifier.verify(credential.value);
      return isPromiseLike(payload) ? payload.then(principalFor) : principalFor(payload);
    },
    health: () => verifier.health(),
  };
  host.authProviders.register(provider, 'auth-oidc');
  host.doctorChecks.register({ id: 'oidc', run: () => verifier.health() }, 'auth-oidc');
  // Every instance keeps its own key cache, so every instance refreshes it; a failed refresh keeps the cached
  // keys (they stay valid until their TTL) and is reported by the doctor.
  host.jobs.register({
    name: 'oidc.key-set-refresh',
    cron: '*/15 * * * *',
    perInstance: true,
    async run(services) {
      await verifier.refresh().catch((error: Error) => services.logger.warn(`OIDC key-set refresh failed: ${error.message}`, { plugin: 'auth-oidc' }));
    },
  }, 'auth-oidc');
  host.onStart((services) => {
    const unset = [oidc.issuer ? '' : 'OIDC_ISSUER', oidc.audience ? '' : 'OIDC_AUDIENCE'].filter(Boolean);
    if (unset.length) {
      services.logger.warn(`SECURITY: ${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} unset. With a key set shared by several tenants or applications, any of their tokens would be accepted here. Set ${unset.join(' and ')}.`, { plugin: 'auth-oidc' });
    }
  });
}

export default {
  name: 'auth-oidc',
  dependencies: ['auth-static-key'],
  setup,
} satisfies Plugin;
