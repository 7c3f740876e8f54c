/**
 * The signer extension point: who signs certificate provenance entries. A signer holds (or reaches, in a key
 * service) one current private key, publishes its public JWK with a `kid` (plus retired keys, so old
 * certificates keep verifying), and signs bytes as a compact JWS (RFC 7515) with EdDSA (RFC 8037) or ES256.
 */
import type { JWK } from 'jose';

/** The JWS algorithms certificates may carry. */
export const SIGNING_ALGORITHMS = ['EdDSA', 'ES256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The current key of a signer, as published. */
export interface SignerKey {
  /** Key id: the RFC 7638 thumbprint of the public JWK; carried in every JWS header. */
  kid: string;
  alg: SigningAlgorithm;
  /** Public JWK with `kid`, `alg` and `use: "sig"`. */
  jwk: JWK;
}

export interface Signer {
  /** Registry name (`local`, `aws-kms`, `gcp-kms`, `azure-keyvault`). */
  name: string;
  /** The current key, loaded or fetched once and cached; rejects with a message naming the fix. */
  currentKey(): Promise<SignerKey>;
  /** Public keys to publish: the current one and every retired one. */
  publicKeys(): Promise<JWK[]>;
  /** Signs `payload` as a compact JWS whose protected header is `{alg, kid, typ}`. */
  sign(payload: Uint8Array, header: { typ: string }): Promise<string>;
  /** Ready to sign (key loaded, service reachable), for the doctor. */
  health?(): Promise<{ ok: boolean; message: string }>;
}

/** The environment variable that picks the signer by name. */
export const SIGNER_ENV = 'AEH_SIGNER';

/**
 * The signer that signs new entries: the one named by `AEH_SIGNER`, else the first key-service signer that is
 * configured (a key that never touches the evaluation disk wins), else `local`.
 * Throws naming the known signers when `AEH_SIGNER` names none of them.
 */
export function selectSigner(signers: { get(name: string): Signer | undefined; list(): Signer[]; names(): string[] }, config: { signer?: string }): Signer {
  const wanted = config.signer;
  if (wanted) {
    const named = signers.get(wanted);
    if (!named) throw new Error(`${SIGNER_ENV}="${wanted}" names no configured signer (configured: ${signers.names().join(', ') || 'none'})`);
    return named;
  }
  const all = signers.list();
  const chosen = all.find((signer) => signer.name !== 'local') ?? all.find((signer) => signer.name === 'local');
  if (!chosen) throw new Error('no signer is configured; the bundled `local` signer plugin must be loaded');
  return chosen;
}
