/**
 * Hostile-test kit: an identity provider's keys (RS256 and ES256) and token minting with jose, and a probe
 * plugin whose routes expose the guards (outbound fetch, file jail, one route per permission node) through the
 * same middleware chain as every real route.
 */
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import { PERMISSION_NODES } from '../../core/permissions.ts';
import { readJailedFile } from '../../core/guards/jail.ts';
import type { Plugin } from '../../core/plugin.ts';

export const ISSUER = 'https://idp.test/';
export const AUDIENCE = 'aeh-api';
export const JWKS_URL = 'https://idp.test/.well-known/jwks.json';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** Generates the IdP's keys: one RS256, one ES256. */
export async function makeKeys(): Promise<SigningKey[]> {
  const keys: SigningKey[] = [];
  for (const [kid, alg] of [['rsa-1', 'RS256'], ['ec-1', 'ES256']] as const) {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    keys.push({ kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } });
  }
  return keys;
}

/** The JWKS document of some keys. */
export function jwksOf(keys: SigningKey[]): { keys: JWK[] } {
  return { keys: keys.map((key) => key.publicJwk) };
}

export interface MintOptions {
  key: SigningKey;
  claims?: JWTPayload & Record<string, unknown>;
  /** Seconds from now; `null` leaves `exp` out. */
  expiresIn?: number | null;
  header?: Record<string, unknown>;
}

/** A token as the IdP would issue it: iss, aud, sub, iat, exp (1 h) plus `claims`. */
export async function mint({ key, claims = {}, expiresIn = 3600, header = {} }: MintOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', iat: now, ...(expiresIn === null ? {} : { exp: now + expiresIn }), ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);
}

export const b64url = (value: string | Uint8Array) => Buffer.from(value).toString('base64url');

/** Environment of an app that trusts the test IdP. */
export function oidcEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { OIDC_JWKS_URL: JWKS_URL, OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: AUDIENCE, AEH_AUTH_FAILURES_PER_MINUTE: '100000', ...extra };
}

/** Routes that expose the guards: `POST /test/fetch {url}`, `POST /test/read {path}`, `GET /test/perm/<node>`. */
export const probePlugin: Plugin = {
  name: 'test-probes',
  setup(host) {
    host.routes.register({
      method: 'POST', path: '/test/fetch', permission: 'evaluations:launch', summary: 'fetch a URL through the SSRF guard',
      body: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
      async handler(c) {
        const response = await c.var.services.fetch((c.var.body as { url: string }).url, { timeoutMs: 5_000 });
        return c.json({ status: response.status, body: await response.text() });
      },
    }, 'test-probes');
    host.routes.register({
      method: 'POST', path: '/test/read', permission: 'scenarios:read', summary: 'read a file through the jail',
      body: { type: 'object', required: ['path'], properties: { path: {} } },
      async handler(c) {
        const bytes = await readJailedFile(c.var.services, (c.var.body as { path: string }).path, 1024 * 1024);
        return c.json({ bytes: bytes.byteLength });
      },
    }, 'test-probes');
    for (const node of PERMISSION_NODES) {
      host.routes.register({ method: 'GET', path: `/test/perm/${node.replace(':', '/')}`, permission: node, summary: `needs ${node}`, handler: (c) => c.json({ node }) }, 'test-probes');
    }
  },
};
