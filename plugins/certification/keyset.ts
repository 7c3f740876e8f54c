/**
 * Our published key set (`GET /.well-known/jwks.json`): every signer's current and retired public keys, by
 * `kid`. Verification uses this set and nothing else.
 */
import type { JWK } from 'jose';
import { Problem } from '../../core/problems.ts';
import type { Services } from '../../core/services.ts';

/** Every signer's public keys, de-duplicated by `kid`. A key service that cannot answer is a 503. */
export async function publishedKeySet(services: Services): Promise<JWK[]> {
  const byKid = new Map<string, JWK>();
  for (const signer of services.signers.list()) {
    let keys: JWK[];
    try {
      keys = await signer.publicKeys();
    } catch (error) {
      // Verifying without this signer's keys would call its certificates forged; say "try again" instead.
      throw new Problem('unavailable', { detail: `the ${signer.name} signer cannot list its public keys; retry later`, cause: error });
    }
    for (const key of keys) if (key.kid && !byKid.has(key.kid)) byKid.set(key.kid, key);
  }
  return [...byKid.values()];
}
