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
 *   answered synchronously, so a remembered token costs the request pipeline no turn of the event loop. The
 *   permissions are not remembered: each use maps the claims again, so PBAC changes reach tokens already seen.
 */
import { asText, textSettings } from '../../core/plugin-settings.ts';
import type { JWTPayload } from 'jose';
import { isPromiseLike } from '../../core/maybe-async.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AuthProvider, Credential, Principal } from '../../core/auth-manager.ts';
import type { OidcVerifier } from './oidc-verifier.ts';

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
  // Read here, as before: a malformed URL or cache size fails setup itself, naming the setting.
  const options = {
    jwksUrl: jwksUrlOf(oidc.jwksUrl),
    issuer: oidc.issuer,
    audience: oidc.audience?.split(',').map((item) => item.trim()).filter(Boolean),
    cacheTtlSeconds: oidc.cacheTtlSeconds,
    verifiedCacheSize: verifiedCacheSizeOf(asText(host.settings).OIDC_VERIFIED_CACHE_SIZE),
    fetch: () => host.capabilities.fetch ?? globalThis.fetch,
  };
  // The verifier (jose's remote key set and JWT verification, ~8 modules) loads only where OIDC is configured,
  // during the start, which awaits it (issue 36).
  let verifier: OidcVerifier | undefined;
  const loading = import('./oidc-verifier.ts').then(({ createOidcVerifier }) => (verifier = createOidcVerifier(options)));
  // Failing, it fails the start (onStart below); not an unhandled rejection meanwhile.
  loading.catch(() => undefined);
  const provider: AuthProvider = {
    name: 'oidc',
    authenticate(credential: Credential, manager) {
      // Only `Authorization: Bearer` carries JWTs; a token in X-API-Key or ?apiKey= is not looked at.
      if (credential.source !== 'authorization') return null;
      // The verification is remembered, never the permissions: they are mapped from the claims on every use, so
      // a change to the role table or the group mappings reaches a token already seen (issue 25 item 13).
      const principalFor = (payload: JWTPayload): Principal => principalOf(payload, manager.permissionsFromClaims(payload as Record<string, unknown>));
      if (!verifier) return loading.then(() => provider.authenticate(credential, manager));
      const payload = verifier.verify(credential.value);
      return isPromiseLike(payload) ? payload.then(principalFor) : principalFor(payload);
    },
    health: async () => (await loading).health(),
  };
  host.authProviders.register(provider, 'auth-oidc');
  host.doctorChecks.register({ id: 'oidc', run: async () => (await loading).health(), quick: async () => (await loading).status() }, 'auth-oidc');
  // Every instance keeps its own key cache, so every instance refreshes it; a failed refresh keeps the cached
  // keys (they stay valid until their TTL) and is reported by the doctor.
  host.jobs.register({
    name: 'oidc.key-set-refresh',
    cron: '*/15 * * * *',
    perInstance: true,
    async run(services) {
      await (await loading).refresh().catch((error: Error) => services.logger.warn(`OIDC key-set refresh failed: ${error.message}`, { plugin: 'auth-oidc' }));
    },
  }, 'auth-oidc');
  host.onStart(async (services) => {
    await loading;
    const unset = [oidc.issuer ? '' : 'OIDC_ISSUER', oidc.audience ? '' : 'OIDC_AUDIENCE'].filter(Boolean);
    if (unset.length) {
      services.logger.warn(`SECURITY: ${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} unset. With a key set shared by several tenants or applications, any of their tokens would be accepted here. Set ${unset.join(' and ')}.`, { plugin: 'auth-oidc' });
    }
  });
}

export default {
  name: 'auth-oidc',
  settings: textSettings({ OIDC_VERIFIED_CACHE_SIZE: 'Verified tokens remembered (default 10000, 0 turns it off)' }),
  dependencies: ['auth-static-key'],
  setup,
} satisfies Plugin;
