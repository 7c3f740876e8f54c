/**
 * The OIDC provider runs the auth provider conformance suite (testing/auth-provider.ts) against a key set served
 * by msw: tokens it signed are accepted, expired, foreign-signed, wrong-audience and wrong-issuer ones refused.
 */
import { beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { pluginHost, testAuthProvider } from '../../testing/index.ts';
import staticKey from './static-key.ts';
import oidc from './oidc.ts';

const ISSUER = 'https://idp.conformance.test';
const keys = generateKeyPair('ES256').then(async (pair) => ({ ...pair, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'current', alg: 'ES256', use: 'sig' } }));
const idp = setupServer(http.get(`${ISSUER}/jwks`, async () => HttpResponse.json({ keys: [(await keys).jwk] })));
beforeAll(() => idp.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => idp.close());

async function token(claims: JWTPayload, options: { key?: CryptoKey; expires?: string | number; audience?: string; issuer?: string } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'current' }).setIssuer(options.issuer ?? ISSUER).setAudience(options.audience ?? 'aeh')
    .setSubject('alice').setIssuedAt().setExpirationTime(options.expires ?? '5m').sign(options.key ?? (await keys).privateKey);
}

testAuthProvider('oidc', () => {
  const host = pluginHost([staticKey, oidc], { env: { OIDC_JWKS_URL: `${ISSUER}/jwks`, OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: 'aeh' } });
  return host.authProviders.get('oidc')!;
}, {
  valid: async () => [
    { credential: await token({ roles: ['viewer'] }), permissions: ['runs:read'] },
    { credential: await token({ roles: ['operator'], scope: 'openid' }), permissions: ['evaluations:launch'] },
  ],
  invalid: async () => [
    await token({ roles: ['supervisor'] }, { expires: Date.parse('2020-01-01T00:00:00Z') / 1000 }),
    await token({ roles: ['supervisor'] }, { key: (await generateKeyPair('ES256')).privateKey }),
    await token({ roles: ['supervisor'] }, { audience: 'another-service' }),
    await token({ roles: ['supervisor'] }, { issuer: 'https://attacker.example' }),
  ],
});
