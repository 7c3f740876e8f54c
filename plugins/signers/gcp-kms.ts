/**
 * Google Cloud KMS signer, over the Cloud KMS REST API (v1) with `fetch` (no SDK).
 *
 * Key versions: `EC_SIGN_ED25519` (EdDSA; `asymmetricSign` with `data` = the signing input) or
 * `EC_SIGN_P256_SHA256` (ES256; `asymmetricSign` with `digest.sha256`; the DER signature is converted to JOSE).
 * Enabled when `AEH_GCP_KMS_KEY_VERSION` (`projects/…/cryptoKeyVersions/N`) is set; authenticates with the OAuth
 * access token in `AEH_GCP_ACCESS_TOKEN` (e.g. `gcloud auth print-access-token`, refreshed by the operator; no
 * metadata-server lookups). `AEH_GCP_KMS_RETIRED_KEY_VERSIONS` (comma list) keeps retired versions published;
 * `AEH_GCP_KMS_ENDPOINT` overrides `https://cloudkms.googleapis.com`.
 */
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Plugin } from '../../core/plugin.ts';
import { createRemoteSigner, derToJoseEcdsa, fromBase64, publishedKeyFromSpki, toBase64, keyServiceFetch, type RemoteKey } from './remote-signing.ts';
import type { SigningAlgorithm } from '../../core/signer.ts';
import { parseJson } from '../../core/guards/json.ts';

const KEY_VERSION = /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+\/cryptoKeyVersions\/[^/]+$/;

/** Configuration of the Google Cloud KMS signer (from `config.env`). */
export interface GcpKmsConfig {
  keyVersion: string;
  retiredKeyVersions: string[];
  endpoint: string;
  accessToken: string;
}

/** Reads the signer's configuration; `null` when `AEH_GCP_KMS_KEY_VERSION` is unset; throws naming what is wrong. */
export function gcpKmsConfig(env: Record<string, string | undefined>): GcpKmsConfig | null {
  const keyVersion = env.AEH_GCP_KMS_KEY_VERSION?.trim();
  if (!keyVersion) return null;
  const retiredKeyVersions = (env.AEH_GCP_KMS_RETIRED_KEY_VERSIONS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of [keyVersion, ...retiredKeyVersions]) {
    if (!KEY_VERSION.test(name)) throw new Error(`"${name}" is not a Cloud KMS key version name (projects/P/locations/L/keyRings/R/cryptoKeys/K/cryptoKeyVersions/N)`);
  }
  const accessToken = env.AEH_GCP_ACCESS_TOKEN?.trim();
  if (!accessToken) throw new Error('AEH_GCP_KMS_KEY_VERSION is set but AEH_GCP_ACCESS_TOKEN is not');
  return { keyVersion, retiredKeyVersions, endpoint: (env.AEH_GCP_KMS_ENDPOINT?.trim() || 'https://cloudkms.googleapis.com').replace(/\/+$/, ''), accessToken };
}

const ALGORITHMS: Record<string, SigningAlgorithm> = { EC_SIGN_ED25519: 'EdDSA', EC_SIGN_P256_SHA256: 'ES256' };

/** One Cloud KMS key version. */
export function gcpKmsKey(config: GcpKmsConfig, keyVersion: string, fetcher: () => typeof fetch): RemoteKey {
  async function call<T>(method: 'GET' | 'POST', suffix: string, body?: unknown): Promise<T> {
    const response = await fetcher()(`${config.endpoint}/v1/${keyVersion}${suffix}`, {
      method,
      headers: { authorization: `Bearer ${config.accessToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok) {
      let reason = `HTTP ${response.status}`;
      try {
        const error = (JSON.parse(text) as { error?: { status?: string; message?: string } }).error;
        if (error) reason = `${error.status ?? reason}: ${error.message ?? ''}`.trim();
      } catch {
        // not JSON: keep the status
      }
      throw new Error(`Cloud KMS ${suffix.replace(/^[:/]/, '')} failed for ${keyVersion}: ${reason}`);
    }
    return parseJson(text) as T;
  }
  return {
    async describe() {
      const answer = await call<{ pem?: string; algorithm?: string }>('GET', '/publicKey');
      const alg = ALGORITHMS[answer.algorithm ?? ''];
      if (!alg) throw new Error(`Cloud KMS key ${keyVersion} uses ${answer.algorithm ?? 'an unknown algorithm'}; use EC_SIGN_ED25519 or EC_SIGN_P256_SHA256`);
      if (!answer.pem) throw new Error(`Cloud KMS returned no pem for ${keyVersion}`);
      return publishedKeyFromSpki(answer.pem, alg);
    },
    async sign(signingInput, alg) {
      const request = alg === 'EdDSA' ? { data: toBase64(signingInput) } : { digest: { sha256: toBase64(sha256(signingInput)) } };
      const answer = await call<{ signature?: string; name?: string }>('POST', ':asymmetricSign', request);
      if (!answer.signature) throw new Error(`Cloud KMS returned no signature for ${keyVersion}`);
      if (answer.name && answer.name !== keyVersion) throw new Error(`Cloud KMS signed with ${answer.name}, not ${keyVersion}`);
      const signature = fromBase64(answer.signature);
      return alg === 'ES256' ? derToJoseEcdsa(signature) : signature;
    },
  };
}

export default {
  name: 'signer-gcp-kms',
  settings: textSettings({
    AEH_GCP_KMS_KEY_VERSION: 'The key version to sign with (projects/…/cryptoKeyVersions/N)',
    AEH_GCP_KMS_RETIRED_KEY_VERSIONS: 'Key versions signed with before, still published (comma list)',
    AEH_GCP_ACCESS_TOKEN: 'An OAuth access token for Cloud KMS',
    AEH_GCP_KMS_ENDPOINT: 'A Cloud KMS endpoint other than the public one',
  }),
  enabled: (host) => Boolean(asText(host.settings).AEH_GCP_KMS_KEY_VERSION?.trim()),
  setup(host) {
    const config = gcpKmsConfig(asText(host.settings))!;
    const fetcher = keyServiceFetch(host);
    const key = (name: string) => gcpKmsKey(config, name, fetcher);
    host.signers.register(createRemoteSigner({ name: 'gcp-kms', current: key(config.keyVersion), retired: config.retiredKeyVersions.map(key) }), 'signer-gcp-kms');
  },
} satisfies Plugin;
