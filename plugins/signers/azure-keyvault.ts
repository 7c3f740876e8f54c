/**
 * Azure Key Vault signer, over the Key Vault REST API with `fetch` (no SDK). Key Vault offers no Ed25519, so
 * keys are EC P-256 (`EC` or `EC-HSM`) and signatures ES256: the service signs our SHA-256 digest of the JWS
 * signing input and returns the JOSE `r || s` form directly.
 *
 * Enabled when `AEH_AZURE_KEY_ID` (`https://<vault>.vault.azure.net/keys/<name>/<version>`) is set; authenticates
 * with the bearer token in `AEH_AZURE_ACCESS_TOKEN` (resource `https://vault.azure.net`, refreshed by the
 * operator). `AEH_AZURE_RETIRED_KEY_IDS` (comma list) keeps retired versions published;
 * `AEH_AZURE_KEYVAULT_API_VERSION` defaults to 7.4.
 */
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import * as base64url from 'jose/base64url';
import type { Plugin } from '../../core/plugin.ts';
import { createRemoteSigner, publishedKey, keyServiceFetch, type RemoteKey } from './remote-signing.ts';
import { parseJson } from '../../core/guards/json.ts';

/** Configuration of the Azure Key Vault signer (from `config.env`). */
export interface AzureKeyVaultConfig {
  keyId: string;
  retiredKeyIds: string[];
  accessToken: string;
  apiVersion: string;
}

function checkKeyId(keyId: string): string {
  let url: URL;
  try {
    url = new URL(keyId);
  } catch {
    throw new Error(`"${keyId}" is not a Key Vault key identifier (https://<vault>.vault.azure.net/keys/<name>/<version>)`);
  }
  if (url.protocol !== 'https:' || !/^\/keys\/[^/]+\/[^/]+\/?$/.test(url.pathname) || url.search) {
    throw new Error(`"${keyId}" is not a versioned Key Vault key identifier (https://<vault>.vault.azure.net/keys/<name>/<version>)`);
  }
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
}

/** Reads the signer's configuration; `null` when `AEH_AZURE_KEY_ID` is unset; throws naming what is wrong. */
export function azureKeyVaultConfig(env: Record<string, string | undefined>): AzureKeyVaultConfig | null {
  const keyId = env.AEH_AZURE_KEY_ID?.trim();
  if (!keyId) return null;
  const accessToken = env.AEH_AZURE_ACCESS_TOKEN?.trim();
  if (!accessToken) throw new Error('AEH_AZURE_KEY_ID is set but AEH_AZURE_ACCESS_TOKEN is not');
  return {
    keyId: checkKeyId(keyId),
    retiredKeyIds: (env.AEH_AZURE_RETIRED_KEY_IDS ?? '').split(',').map((id) => id.trim()).filter(Boolean).map(checkKeyId),
    accessToken,
    apiVersion: env.AEH_AZURE_KEYVAULT_API_VERSION?.trim() || '7.4',
  };
}

/** One Key Vault key version. */
export function azureKey(config: AzureKeyVaultConfig, keyId: string, fetcher: () => typeof fetch): RemoteKey {
  async function call<T>(method: 'GET' | 'POST', suffix: string, body?: unknown): Promise<T> {
    const response = await fetcher()(`${keyId}${suffix}?api-version=${encodeURIComponent(config.apiVersion)}`, {
      method,
      headers: { authorization: `Bearer ${config.accessToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok) {
      let reason = `HTTP ${response.status}`;
      try {
        const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
        if (error) reason = `${error.code ?? reason}: ${error.message ?? ''}`.trim();
      } catch {
        // not JSON: keep the status
      }
      throw new Error(`Azure Key Vault ${suffix ? 'sign' : 'get key'} failed for ${keyId}: ${reason}`);
    }
    return parseJson(text) as T;
  }
  return {
    async describe() {
      const answer = await call<{ key?: { kty?: string; crv?: string; x?: string; y?: string } }>('GET', '');
      const key = answer.key;
      if (!key || !['EC', 'EC-HSM'].includes(key.kty ?? '') || key.crv !== 'P-256') {
        throw new Error(`Azure Key Vault key ${keyId} is ${key?.kty ?? 'unknown'}/${key?.crv ?? 'unknown'}; an EC P-256 key is needed (ES256)`);
      }
      return publishedKey({ kty: 'EC', crv: 'P-256', x: key.x, y: key.y }, 'ES256');
    },
    async sign(signingInput) {
      const answer = await call<{ value?: string }>('POST', '/sign', { alg: 'ES256', value: base64url.encode(sha256(signingInput)) });
      if (!answer.value) throw new Error(`Azure Key Vault returned no signature for ${keyId}`);
      const signature = base64url.decode(answer.value);
      if (signature.length !== 64) throw new Error(`Azure Key Vault returned a ${signature.length}-byte ES256 signature; 64 expected`);
      return signature;
    },
  };
}

export default {
  name: 'signer-azure-keyvault',
  settings: textSettings({
    AEH_AZURE_KEY_ID: 'The Key Vault key id (https://<vault>.vault.azure.net/keys/<name>/<version>)',
    AEH_AZURE_ACCESS_TOKEN: 'An Entra ID access token for Key Vault',
    AEH_AZURE_RETIRED_KEY_IDS: 'Keys signed with before, still published (comma list)',
    AEH_AZURE_KEYVAULT_API_VERSION: 'The Key Vault REST API version',
  }),
  enabled: (host) => Boolean(asText(host.settings).AEH_AZURE_KEY_ID?.trim()),
  setup(host) {
    const config = azureKeyVaultConfig(asText(host.settings))!;
    const fetcher = keyServiceFetch(host);
    const key = (id: string) => azureKey(config, id, fetcher);
    host.signers.register(createRemoteSigner({ name: 'azure-keyvault', current: key(config.keyId), retired: config.retiredKeyIds.map(key) }), 'signer-azure-keyvault');
  },
} satisfies Plugin;
