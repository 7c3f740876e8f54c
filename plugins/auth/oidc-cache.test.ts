/**
 * Hostile: the cache of verified OIDC tokens (issue 33, self-attack). A remembered verification must be worth no
 * more than verifying again: a token replayed after its `exp` is refused, a key withdrawn or rotated away by a
 * key-set refresh stops every token it signed, and a refresh landing while a signature is being checked must not
 * make that check count as one against the new key set (it was remembered under the new generation, so a token
 * of the withdrawn key kept being accepted from the cache until the next refresh).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createOidcVerifier } from './oidc-verifier.ts';

const ISSUER = 'https://idp.cache.test';

async function key(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

const sign = (signer: { kid: string; privateKey: CryptoKey }, expires: string | number = '5m') => new SignJWT({ roles: ['viewer'] })
  .setProtectedHeader({ alg: 'ES256', kid: signer.kid }).setIssuer(ISSUER).setAudience('aeh').setSubject('alice').setIssuedAt().setExpirationTime(expires).sign(signer.privateKey);

/** A verifier over a key set the test serves (`served.keys`), counting fetches. */
function verifierServing(served: { keys: object[] }) {
  const fetchKeys = (async () => new Response(JSON.stringify({ keys: served.keys }), { status: 200, headers: { 'content-type': 'application/json' } })) as unknown as typeof fetch;
  return createOidcVerifier({ jwksUrl: new URL(`${ISSUER}/jwks`), issuer: ISSUER, audience: ['aeh'], cacheTtlSeconds: 3600, fetch: () => fetchKeys });
}

/** The verification's outcome: the subject, or the refusal's status. */
async function outcome(verify: () => unknown): Promise<string | number> {
  try {
    return String(((await verify()) as { sub: string }).sub);
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('hostile: remembered OIDC verifications', () => {
  afterEach(() => vi.useRealTimers());

  it('refuses a remembered token replayed after its exp (and its leeway)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const signer = await key('k1');
    const verifier = verifierServing({ keys: [signer.jwk] });
    const token = await sign(signer, '60s');
    expect(await outcome(() => verifier.verify(token))).toBe('alice');
    expect(await outcome(() => verifier.verify(token))).toBe('alice'); // remembered
    vi.setSystemTime(Date.now() + 65_000); // inside the 10 s leeway
    expect(await outcome(() => verifier.verify(token))).toBe('alice');
    vi.setSystemTime(Date.now() + 10_000);
    expect(await outcome(() => verifier.verify(token))).toBe(401);
  });

  it('stops every token of a key a refresh withdrew, remembered or not', async () => {
    const withdrawn = await key('old');
    const current = await key('new');
    const served = { keys: [withdrawn.jwk, current.jwk] };
    const verifier = verifierServing(served);
    const token = await sign(withdrawn);
    expect(await outcome(() => verifier.verify(token))).toBe('alice');
    served.keys = [current.jwk];
    await verifier.refresh();
    expect(await outcome(() => verifier.verify(token))).toBe(401);
    expect(await outcome(() => verifier.verify(token))).toBe(401);
    expect(await outcome(async () => verifier.verify(await sign(current)))).toBe('alice');
  });

  it('does not remember, as verified by the new key set, a check a key-withdrawing refresh landed in', async () => {
    const withdrawn = await key('old');
    const served = { keys: [withdrawn.jwk] as object[] };
    const verifier = verifierServing(served);
    const token = await sign(withdrawn);
    // Warm: the key set is fetched, and a first token of the key verified.
    expect(await outcome(async () => verifier.verify(await sign(withdrawn)))).toBe('alice');
    for (let round = 0; round < 20; round++) {
      served.keys = [withdrawn.jwk];
      await verifier.refresh();
      // The check starts against a set holding the key; the refresh withdrawing it runs while the signature is checked.
      const checking = outcome(() => verifier.verify(token));
      served.keys = [];
      await verifier.refresh();
      await checking;
      // However the two interleaved, the key is gone now: the token is refused, never answered from memory.
      expect(await outcome(() => verifier.verify(token))).toBe(401);
    }
  });
});
