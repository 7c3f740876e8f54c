/**
 * What key-service signers (AWS KMS, Google Cloud KMS, Azure Key Vault) share: building the JWS signing input
 * (RFC 7515 §5.1), converting a service's DER ECDSA signature to the JOSE form (RFC 7518 §3.4), importing its
 * public key into a published JWK with an RFC 7638 thumbprint `kid`, and caching the key so each service is
 * asked for its public key once. The private key stays in the service; only signing inputs leave the process.
 */
import * as base64url from 'jose/base64url';
import { calculateJwkThumbprint } from 'jose/jwk/thumbprint';
import { exportJWK } from 'jose/key/export';
import { importJWK, importSPKI } from 'jose/key/import';
import type { JWK } from 'jose';
import type { Signer, SignerKey, SigningAlgorithm } from '../../core/signer.ts';
import type { PluginHost } from '../../core/plugin-host.ts';

const encoder = new TextEncoder();

/** Standard base64 of bytes (key services speak base64, JOSE speaks base64url). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

/** Bytes of a standard or url-safe base64 string. */
export function fromBase64(text: string): Uint8Array {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** The JWS signing input `BASE64URL(header) . BASE64URL(payload)` as ASCII bytes and text. */
export function jwsSigningInput(header: Record<string, unknown>, payload: Uint8Array): { text: string; bytes: Uint8Array } {
  const text = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(payload)}`;
  return { text, bytes: encoder.encode(text) };
}

function readDerInteger(der: Uint8Array, offset: number): { value: Uint8Array; next: number } {
  if (der[offset] !== 0x02) throw new Error('DER signature: expected an INTEGER');
  const length = der[offset + 1];
  if (length === undefined || length > 0x7f || length === 0) throw new Error('DER signature: bad INTEGER length');
  const start = offset + 2;
  if (start + length > der.length) throw new Error('DER signature: truncated INTEGER');
  return { value: der.subarray(start, start + length), next: start + length };
}

/**
 * Converts an ECDSA signature from DER (`SEQUENCE { INTEGER r, INTEGER s }`, what AWS KMS and Google Cloud KMS
 * return) to the fixed-width `r || s` JOSE form.
 * @param size bytes per integer (32 for P-256)
 */
export function derToJoseEcdsa(der: Uint8Array, size = 32): Uint8Array {
  if (der[0] !== 0x30) throw new Error('DER signature: expected a SEQUENCE');
  let offset = 2;
  let sequenceLength = der[1];
  if (sequenceLength === 0x81) {
    sequenceLength = der[2];
    offset = 3;
  }
  if (sequenceLength === undefined || offset + sequenceLength !== der.length) throw new Error('DER signature: length mismatch');
  const r = readDerInteger(der, offset);
  const s = readDerInteger(der, r.next);
  if (s.next !== der.length) throw new Error('DER signature: trailing bytes');
  const jose = new Uint8Array(size * 2);
  for (const [index, integer] of [r.value, s.value].entries()) {
    let value = integer;
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    if (value.length > size) throw new Error('DER signature: integer too large');
    jose.set(value, index * size + (size - value.length));
  }
  return jose;
}

/** A PEM `PUBLIC KEY` block from DER SubjectPublicKeyInfo bytes. */
export function spkiPem(der: Uint8Array): string {
  const body = toBase64(der).replace(/(.{64})/g, '$1\n').trim();
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
}

/** The published form of a public key: `kty`/`crv`/`x`/`y` plus thumbprint `kid`, `alg` and `use`. */
export async function publishedKey(jwk: JWK, alg: SigningAlgorithm): Promise<SignerKey> {
  const publicOnly: JWK = jwk.kty === 'EC' ? { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: 'OKP', crv: jwk.crv, x: jwk.x };
  if (alg === 'ES256' && (publicOnly.kty !== 'EC' || publicOnly.crv !== 'P-256')) throw new Error(`an ES256 key must be EC P-256, got ${publicOnly.kty}/${publicOnly.crv}`);
  if (alg === 'EdDSA' && (publicOnly.kty !== 'OKP' || publicOnly.crv !== 'Ed25519')) throw new Error(`an EdDSA key must be OKP Ed25519, got ${publicOnly.kty}/${publicOnly.crv}`);
  // Importing proves the coordinates are a valid point before the key is ever published.
  await importJWK(publicOnly, alg);
  const kid = await calculateJwkThumbprint(publicOnly, 'sha256');
  return { kid, alg, jwk: { ...publicOnly, kid, alg, use: 'sig' } };
}

/** The published key of a PEM/DER SubjectPublicKeyInfo (AWS `GetPublicKey`, Google `getPublicKey`). */
export async function publishedKeyFromSpki(spki: Uint8Array | string, alg: SigningAlgorithm): Promise<SignerKey> {
  const pem = typeof spki === 'string' ? spki : spkiPem(spki);
  const key = await importSPKI(pem, alg, { extractable: true });
  return publishedKey(await exportJWK(key), alg);
}

/** A key held by a service: how to describe it and how to have it sign. */
export interface RemoteKey {
  /** Fetches the public key and algorithm from the service. */
  describe(): Promise<SignerKey>;
  /** Has the service sign the JWS signing input; returns the signature in JOSE form. */
  sign(signingInput: Uint8Array, alg: SigningAlgorithm): Promise<Uint8Array>;
}

/** Options of `createRemoteSigner`. */
export interface RemoteSignerOptions {
  /** Registry name. */
  name: string;
  /** The current key. */
  current: RemoteKey;
  /** Retired keys of the same service, still published so old certificates verify. */
  retired?: RemoteKey[];
}

/** A `Signer` over a key service: public keys fetched once and cached, signing delegated per call. */
export function createRemoteSigner({ name, current, retired = [] }: RemoteSignerOptions): Signer {
  let currentKey: Promise<SignerKey> | undefined;
  let allKeys: Promise<JWK[]> | undefined;
  const loadCurrent = () => {
    // A failed fetch is not cached: the next call asks the service again.
    currentKey ??= current.describe().catch((error: unknown) => {
      currentKey = undefined;
      throw error;
    });
    return currentKey;
  };
  return {
    name,
    currentKey: loadCurrent,
    publicKeys() {
      allKeys ??= Promise.all([loadCurrent(), ...retired.map((key) => key.describe())]).then(
        (keys) => keys.map((key) => key.jwk),
        (error: unknown) => {
          allKeys = undefined;
          throw error;
        },
      );
      return allKeys;
    },
    async sign(payload, header) {
      const key = await loadCurrent();
      const input = jwsSigningInput({ alg: key.alg, kid: key.kid, typ: header.typ }, payload);
      const signature = await current.sign(input.bytes, key.alg);
      return `${input.text}.${base64url.encode(signature)}`;
    },
    async health() {
      try {
        const key = await loadCurrent();
        return { ok: true, message: `${name}: key ${key.kid} (${key.alg}) reachable` };
      } catch (error) {
        return { ok: false, message: `${name}: ${(error as Error).message}` };
      }
    },
  };
}

/**
 * The fetch a key-service signer calls: the runtime's until the service has started, then the services'
 * `trustedFetch` (operator-configured endpoints, not SSRF-guarded). Signers are built at plugin setup, before
 * services exist, so they take this getter rather than a fetch.
 */
export function keyServiceFetch(host: PluginHost): () => typeof fetch {
  let fetcher: typeof fetch = host.capabilities.fetch ?? ((input, init) => globalThis.fetch(input, init));
  host.onStart((services) => {
    fetcher = services.trustedFetch;
  });
  return () => fetcher;
}
