/**
 * Example signer plugin: certificates signed with a key your platform already manages and mounts as a file (a
 * Kubernetes secret, a Vault agent sink), instead of the key the `local` signer keeps beside the data. The file
 * holds a private JWK, Ed25519 (EdDSA) or P-256 (ES256). The key is read once, at start, so a missing or broken
 * file stops the start with a message that names the file and never repeats the key.
 *
 * What a signer owes certificates (core/signer.ts): `kid` is the RFC 7638 thumbprint of the public key; the
 * published JWK has `kid`, `alg` and `use: "sig"` and no private member; `sign` returns a compact JWS whose
 * protected header is exactly `{alg, kid, typ}`; keys signed with before stay in `publicKeys` so old certificates
 * keep verifying.
 *
 *   // aeh.config.ts
 *   import { mountedKeySigner } from './plugins/mounted-key-signer.ts';
 *   export default { plugins: [mountedKeySigner({ path: '/run/secrets/aeh-signing.jwk' })] };
 *
 * Once loaded it signs every new certificate (a signer other than `local` is preferred).
 */
import { CompactSign, calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import type { Plugin, Signer, SignerKey, SigningAlgorithm } from '../../core/plugin-api.ts';

/** Options of `createMountedKeySigner`. */
export interface MountedKeySignerOptions {
  /** Reads the private JWK, as JSON text. */
  readKey(): Promise<string>;
  /** Public JWKs of keys retired from signing, still published so the certificates they signed verify. */
  retired?: JWK[];
}

/** The public half of a private JWK, with its thumbprint as `kid`. */
async function publicKeyOf(jwk: JWK): Promise<SignerKey> {
  const alg: SigningAlgorithm | undefined = jwk.kty === 'OKP' && jwk.crv === 'Ed25519' ? 'EdDSA' : jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : undefined;
  if (!alg || typeof jwk.d !== 'string') throw new Error('the key must be a private Ed25519 (OKP) or P-256 (EC) JWK with its "d" member');
  const publicJwk: JWK = jwk.kty === 'EC' ? { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: 'OKP', crv: jwk.crv, x: jwk.x };
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  return { kid, alg, jwk: { ...publicJwk, kid, alg, use: 'sig' } };
}

/** A signer over one private key read by `readKey`, loaded on first use and kept. */
export function createMountedKeySigner({ readKey, retired = [] }: MountedKeySignerOptions): Signer {
  let loaded: Promise<{ key: SignerKey; privateKey: CryptoKey | Uint8Array }> | undefined;
  async function load() {
    let jwk: JWK;
    try {
      jwk = JSON.parse(await readKey()) as JWK;
    } catch (error) {
      // JSON.parse quotes the text it choked on, and that text is a private key: say only what went wrong.
      throw new Error(error instanceof SyntaxError ? 'the key file is not JSON (a private JWK)' : `the key file cannot be read: ${(error as Error).message}`);
    }
    const key = await publicKeyOf(jwk);
    return { key, privateKey: await importJWK(jwk, key.alg) };
  }
  // Concurrent first calls share one load; a failed load is tried again on the next call.
  const current = () => (loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  }));
  return {
    name: 'mounted-key',
    currentKey: async () => (await current()).key,
    publicKeys: async () => [(await current()).key.jwk, ...retired],
    async sign(payload, { typ }) {
      const { key, privateKey } = await current();
      return new CompactSign(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ }).sign(privateKey);
    },
    async health() {
      try {
        const { key } = await current();
        return { ok: true, message: `mounted key ${key.kid} (${key.alg}) loaded` };
      } catch (error) {
        return { ok: false, message: `mounted-key signer: ${(error as Error).message}` };
      }
    },
  };
}

/** The plugin: signs with the private JWK in the file at `path`, read through the runtime's file access. */
export function mountedKeySigner(options: { path: string; retired?: JWK[] }): Plugin {
  return {
    name: 'example-mounted-key-signer',
    version: '1.0.0',
    setup(host) {
      const files = host.capabilities.files;
      if (!files) throw new Error('this runtime has no file system to read the key from');
      const signer = createMountedKeySigner({ readKey: async () => new TextDecoder().decode(await files.readFile(options.path)), retired: options.retired });
      host.signers.register(signer, 'example-mounted-key-signer');
      host.onStart(async () => {
        await signer.currentKey().catch((error: Error) => {
          throw new Error(`${options.path}: ${error.message}`);
        });
      });
    },
  };
}
