/**
 * The OIDC key-set client and the token checks built on it (the policy is described in oidc.ts, the plugin
 * that uses it): refusals before any cryptography, jose's signature and claim checks against the configured
 * key set, and the cache of verified tokens.
 */
import { createRemoteJWKSet, customFetch } from 'jose/jwks/remote';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { jwtVerify } from 'jose/jwt/verify';
import type { JWTPayload } from 'jose';
import type { MaybePromise } from '../../core/maybe-async.ts';
import { Problem } from '../../core/problems.ts';
import { parseJson } from '../../core/guards/json.ts';
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
  /** The key set's state as last fetched, without fetching: the quick form of `health`. */
  status(): Omit<CheckResult, 'id'>;
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

/** What the key-set client remembers between fetches: the last outage (to back off) and the last success. */
interface KeySetState {
  failedAt: number;
  lastFailure: string;
  fetchedAt: number;
  /** Counts successful fetches: keys may have been rotated or withdrawn, so earlier verifications no longer count. */
  generation: number;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** jose's remote key set, fetched through a wrapper that remembers outages and backs off while they last. */
function createKeySet(options: OidcVerifierOptions, state: KeySetState): KeySet {
  const keySetFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (Date.now() - state.failedAt < OUTAGE_BACKOFF_MS) throw new Error(`key server failing, backing off: ${state.lastFailure}`);
    try {
      const response = await options.fetch()(url, init);
      const text = response.status === 200 ? await response.text() : '';
      const keys = text ? (parseJson(text) as { keys?: unknown }).keys : undefined;
      if (!Array.isArray(keys)) throw new Error(response.status === 200 ? 'the key set is not a JWKS document' : `HTTP ${response.status}`);
      state.fetchedAt = Date.now();
      state.generation += 1;
      return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (error) {
      state.failedAt = Date.now();
      state.lastFailure = (error as Error).message?.slice(0, 200) ?? String(error);
      throw error;
    }
  };
  return createRemoteJWKSet(options.jwksUrl, {
    cacheMaxAge: options.cacheTtlSeconds * 1000,
    cooldownDuration: UNKNOWN_KID_COOLDOWN_MS,
    timeoutDuration: JWKS_TIMEOUT_MS,
    [customFetch]: keySetFetch,
  });
}

/** Refuses, before any cryptography, oversized tokens, anything but a compact JWS, key-bearing headers, other algorithms. */
function refuseBeforeVerifying(token: string): void {
  if (token.length > MAX_TOKEN_BYTES) throw unauthorized(`the bearer token is larger than ${MAX_TOKEN_BYTES} bytes`);
  if (!COMPACT_JWS.test(token)) throw unauthorized('the bearer token is neither the API key nor a compact JWS (header.payload.signature)');
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
}

/** Why a token that did not verify is refused: 401 for the token, 503 when no key set was ever fetched. */
function verificationProblem(error: unknown, jwks: KeySet): Problem {
  if (isTokenError(error)) return unauthorized(`invalid bearer token: ${(error as Error).message}`);
  if (!jwks.jwks()) {
    return new Problem('unavailable', {
      detail: 'the OIDC key set (OIDC_JWKS_URL) could not be fetched; retry later',
      headers: { 'Retry-After': String(Math.ceil(OUTAGE_BACKOFF_MS / 1000)) },
      cause: error,
    });
  }
  return unauthorized('the token cannot be verified: the cached signing keys expired and the key server does not answer');
}

/** Doctor view of the key set: configuration warnings, then whether the key server answers a reload. */
async function keySetHealth(options: OidcVerifierOptions, jwks: KeySet, state: KeySetState): Promise<Omit<CheckResult, 'id'>> {
  const warnings: string[] = [];
  if (!options.issuer) warnings.push('OIDC_ISSUER is unset: tokens from any issuer signed by these keys are accepted');
  if (!options.audience?.length) warnings.push('OIDC_AUDIENCE is unset: tokens minted for any other service sharing these keys are accepted');
  if (options.jwksUrl.protocol !== 'https:') warnings.push('OIDC_JWKS_URL is not https');
  const hint = 'set OIDC_ISSUER and OIDC_AUDIENCE to your identity provider\'s issuer and this service\'s audience';
  try {
    await jwks.reload();
  } catch {
    const cachedFor = Math.max(0, Math.round((state.fetchedAt + options.cacheTtlSeconds * 1000 - Date.now()) / 1000));
    return jwks.fresh
      ? { status: 'warn', message: `the key server does not answer (${state.lastFailure}); cached keys stay valid for ${cachedFor} s`, hint: 'check OIDC_JWKS_URL and the identity provider' }
      : { status: 'fail', message: `the key server does not answer (${state.lastFailure}) and no valid keys are cached: bearer tokens are refused`, hint: 'check OIDC_JWKS_URL and the identity provider' };
  }
  const count = (jwks.jwks()?.keys ?? []).length;
  if (warnings.length) return { status: 'warn', message: `${count} signing key(s) fetched; ${warnings.join('; ')}`, hint };
  return { status: 'ok', message: `${count} signing key(s) fetched from ${options.jwksUrl.origin}; issuer and audience are checked` };
}

function keySetStatus(options: OidcVerifierOptions, jwks: KeySet, state: KeySetState): Omit<CheckResult, 'id'> {
  const count = (jwks.jwks()?.keys ?? []).length;
  if (jwks.fresh) {
    const unchecked = [options.issuer ? '' : 'OIDC_ISSUER', options.audience?.length ? '' : 'OIDC_AUDIENCE'].filter(Boolean);
    return unchecked.length ? { status: 'warn', message: `${count} signing key(s) cached; ${unchecked.join(' and ')} unset` } : { status: 'ok', message: `${count} signing key(s) cached` };
  }
  if (state.lastFailure) return { status: 'fail', message: `no valid keys cached; the key server last answered: ${state.lastFailure}` };
  return { status: 'ok', message: 'the key set is fetched with the first bearer token' };
}

/** Builds the verifier; the key server is contacted on first use, not here. */
export function createOidcVerifier(options: OidcVerifierOptions): OidcVerifier {
  const state: KeySetState = { failedAt: Number.NEGATIVE_INFINITY, lastFailure: '', fetchedAt: Number.NEGATIVE_INFINITY, generation: 0 };
  const verified = new Map<string, VerifiedToken>();
  const verifiedCacheSize = options.verifiedCacheSize ?? 10_000;
  const jwks = createKeySet(options, state);

  /** The full check: format, header, signature against the key set, claims; remembered when it passes. */
  async function verifyInFull(token: string): Promise<JWTPayload> {
    refuseBeforeVerifying(token);
    const key = verifiedCacheSize > 0 ? payloadSegment(token) : '';
    // The generation the verification starts from: a refresh that lands while the signature is checked (a key
    // withdrawn) must not make this verification count as one against the new key set.
    const generation = state.generation;
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
      throw verificationProblem(error, jwks);
    }
  }

  return {
    everFetched: () => jwks.jwks() !== undefined,
    verify(token) {
      if (verifiedCacheSize > 0) {
        const hit = verified.get(payloadSegment(token));
        if (hit && hit.generation === state.generation && jwks.fresh && sameText(hit.token, token) && timely(hit.payload, Math.floor(Date.now() / 1000))) {
          return hit.payload;
        }
      }
      return verifyInFull(token);
    },
    async refresh() {
      await jwks.reload();
    },
    health: () => keySetHealth(options, jwks, state),
    status: () => keySetStatus(options, jwks, state),
  };
}
