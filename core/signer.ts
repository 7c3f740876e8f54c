/**
 * The signer extension point: who signs certificate provenance entries. A signer holds (or reaches) one
 * private key, publishes its public JWK with a `kid`, and signs bytes as a compact JWS.
 */
import type { JWK } from 'jose';

export interface Signer {
  /** Registry name (`local`, `aws-kms`, `gcp-kms`, `azure-keyvault`). */
  name: string;
  /** Key id, published in the JWKS and carried in every JWS header. */
  readonly kid: string;
  readonly alg: 'EdDSA' | 'ES256';
  /** Public key(s) to publish; retired keys included so old certificates keep verifying. */
  publicKeys(): Promise<JWK[]>;
  /** Signs `payload` as a compact JWS with the given protected header members (`typ`). */
  sign(payload: Uint8Array, header: { typ: string }): Promise<string>;
  /** Ready to sign (key loaded, service reachable), for the doctor. */
  health?(): Promise<{ ok: boolean; message: string }>;
}
