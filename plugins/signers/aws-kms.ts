/**
 * AWS KMS signer, over the KMS JSON API with `fetch` (no SDK, so edge runtimes work). Requests are signed with
 * AWS Signature Version 4, built on @noble/hashes HMAC-SHA-256 (request authentication, not a crypto primitive).
 *
 * Keys: `ECC_NIST_EDWARDS25519` (EdDSA, `ED25519_SHA_512`) or `ECC_NIST_P256` (ES256, `ECDSA_SHA_256`, the DER
 * signature converted to JOSE form). Either way the JWS signing input is sent as a `RAW` message (at most
 * 4096 bytes; ours is well under 1 KiB) and KMS does any hashing itself.
 * Enabled when `AEH_AWS_KMS_KEY_ID` is set; needs `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`
 * (and `AWS_SESSION_TOKEN` for temporary credentials). `AEH_AWS_KMS_RETIRED_KEY_IDS` (comma list) keeps
 * retired keys published; `AEH_AWS_KMS_ENDPOINT` overrides the endpoint (VPC endpoints, LocalStack).
 */
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Plugin } from '../../core/plugin.ts';
import { createRemoteSigner, derToJoseEcdsa, fromBase64, publishedKeyFromSpki, toBase64, keyServiceFetch, type RemoteKey } from './remote-signing.ts';
import type { SigningAlgorithm } from '../../core/signer.ts';
import { parseJson } from '../../core/guards/json.ts';

const encoder = new TextEncoder();

/** AWS credentials for SigV4. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A request to sign with SigV4. */
export interface SigV4Request {
  method: string;
  url: URL;
  /** Headers to sign (names in any case); `host` and `x-amz-date` are added. */
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  /** `YYYYMMDDTHHMMSSZ`. */
  amzDate: string;
}

function hex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

// RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone).
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Signs a request with AWS Signature Version 4 and returns the headers to send (the given ones plus `host`,
 * `x-amz-date`, `x-amz-security-token` when a session token is used, and `authorization`).
 */
export function signSigV4(request: SigV4Request, credentials: AwsCredentials): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers.host = request.url.host;
  headers['x-amz-date'] = request.amzDate;
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const query = [...request.url.searchParams.entries()]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)])
    .sort(([a, b], [c, d]) => (a === c ? (b! < d! ? -1 : 1) : a! < c! ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const path = request.url.pathname.split('/').map((segment) => uriEncode(decodeURIComponent(segment))).join('/') || '/';
  const canonicalRequest = [request.method, path, query, canonicalHeaders, signedHeaders, hex(sha256(encoder.encode(request.body)))].join('\n');
  const date = request.amzDate.slice(0, 8);
  const scope = `${date}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', request.amzDate, scope, hex(sha256(encoder.encode(canonicalRequest)))].join('\n');
  let key = hmac(sha256, encoder.encode(`AWS4${credentials.secretAccessKey}`), encoder.encode(date));
  for (const part of [request.region, request.service, 'aws4_request']) key = hmac(sha256, key, encoder.encode(part));
  const signature = hex(hmac(sha256, key, encoder.encode(stringToSign)));
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** `YYYYMMDDTHHMMSSZ` of a time. */
export function amzDate(time: number): string {
  return new Date(time).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Configuration of the AWS KMS signer (from `config.env`). */
export interface AwsKmsConfig {
  keyId: string;
  retiredKeyIds: string[];
  region: string;
  endpoint: string;
  credentials: AwsCredentials;
}

/** Reads the signer's configuration; `null` when `AEH_AWS_KMS_KEY_ID` is unset; throws naming what is missing. */
export function awsKmsConfig(env: Record<string, string | undefined>): AwsKmsConfig | null {
  const keyId = env.AEH_AWS_KMS_KEY_ID?.trim();
  if (!keyId) return null;
  const region = (env.AWS_REGION ?? env.AWS_DEFAULT_REGION)?.trim();
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  const missing = [!region && 'AWS_REGION', !accessKeyId && 'AWS_ACCESS_KEY_ID', !secretAccessKey && 'AWS_SECRET_ACCESS_KEY'].filter(Boolean);
  if (missing.length) throw new Error(`AEH_AWS_KMS_KEY_ID is set but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not`);
  return {
    keyId,
    retiredKeyIds: (env.AEH_AWS_KMS_RETIRED_KEY_IDS ?? '').split(',').map((id) => id.trim()).filter(Boolean),
    region: region!,
    endpoint: env.AEH_AWS_KMS_ENDPOINT?.trim() || `https://kms.${region}.amazonaws.com/`,
    credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, sessionToken: env.AWS_SESSION_TOKEN?.trim() || undefined },
  };
}

const KEY_SPECS: Record<string, { alg: SigningAlgorithm; signingAlgorithm: string }> = {
  ECC_NIST_EDWARDS25519: { alg: 'EdDSA', signingAlgorithm: 'ED25519_SHA_512' },
  ECC_NIST_P256: { alg: 'ES256', signingAlgorithm: 'ECDSA_SHA_256' },
};

/** One KMS key, reached through the `TrentService` JSON API. */
export function awsKmsKey(config: AwsKmsConfig, keyId: string, fetcher: () => typeof fetch, now: () => number): RemoteKey {
  async function call<T>(target: string, payload: Record<string, unknown>): Promise<T> {
    const url = new URL(config.endpoint);
    const body = JSON.stringify(payload);
    const headers = signSigV4(
      { method: 'POST', url, body, region: config.region, service: 'kms', amzDate: amzDate(now()), headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${target}` } },
      config.credentials,
    );
    delete headers.host; // fetch sets it; it was signed with the same value
    const response = await fetcher()(url, { method: 'POST', headers, body });
    const text = await response.text();
    if (!response.ok) {
      let reason = `HTTP ${response.status}`;
      try {
        const error = JSON.parse(text) as { __type?: string; message?: string; Message?: string };
        reason = `${error.__type?.split('#').pop() ?? reason}: ${error.message ?? error.Message ?? ''}`.trim();
      } catch {
        // not JSON: keep the status
      }
      throw new Error(`AWS KMS ${target} failed for key ${keyId}: ${reason}`);
    }
    return parseJson(text) as T;
  }
  let spec: Promise<{ alg: SigningAlgorithm; signingAlgorithm: string }> | undefined;
  return {
    async describe() {
      const answer = await call<{ PublicKey?: string; KeySpec?: string; CustomerMasterKeySpec?: string; KeyUsage?: string }>('GetPublicKey', { KeyId: keyId });
      const keySpec = answer.KeySpec ?? answer.CustomerMasterKeySpec ?? '';
      const known = KEY_SPECS[keySpec];
      if (!known) throw new Error(`AWS KMS key ${keyId} has KeySpec ${keySpec || 'unknown'}; use ECC_NIST_EDWARDS25519 or ECC_NIST_P256`);
      if (answer.KeyUsage && answer.KeyUsage !== 'SIGN_VERIFY') throw new Error(`AWS KMS key ${keyId} has KeyUsage ${answer.KeyUsage}; SIGN_VERIFY is needed`);
      if (!answer.PublicKey) throw new Error(`AWS KMS returned no PublicKey for ${keyId}`);
      spec = Promise.resolve(known);
      return publishedKeyFromSpki(fromBase64(answer.PublicKey), known.alg);
    },
    async sign(signingInput, alg) {
      const known = spec ? await spec : Object.values(KEY_SPECS).find((entry) => entry.alg === alg)!;
      if (signingInput.length > 4096) throw new Error(`AWS KMS signs RAW messages of at most 4096 bytes; the signing input is ${signingInput.length}`);
      const answer = await call<{ Signature?: string }>('Sign', {
        KeyId: keyId,
        Message: toBase64(signingInput),
        MessageType: 'RAW',
        SigningAlgorithm: known.signingAlgorithm,
      });
      if (!answer.Signature) throw new Error(`AWS KMS returned no Signature for ${keyId}`);
      const signature = fromBase64(answer.Signature);
      return alg === 'ES256' ? derToJoseEcdsa(signature) : signature;
    },
  };
}

export default {
  name: 'signer-aws-kms',
  settings: textSettings({
    AEH_AWS_KMS_KEY_ID: 'The KMS key (id, alias or ARN) to sign with',
    AEH_AWS_KMS_RETIRED_KEY_IDS: 'Keys signed with before, still published (comma list)',
    AEH_AWS_KMS_ENDPOINT: 'A KMS endpoint other than the regional one',
    AWS_REGION: 'The region', AWS_DEFAULT_REGION: 'The region, when AWS_REGION is unset',
    AWS_ACCESS_KEY_ID: 'Access key id', AWS_SECRET_ACCESS_KEY: 'Secret access key', AWS_SESSION_TOKEN: 'Session token',
  }),
  enabled: (host) => Boolean(asText(host.settings).AEH_AWS_KMS_KEY_ID?.trim()),
  setup(host) {
    const config = awsKmsConfig(asText(host.settings))!;
    const fetcher = keyServiceFetch(host);
    const now = () => (host.capabilities.now ?? Date.now)();
    const key = (id: string) => awsKmsKey(config, id, fetcher, now);
    host.signers.register(createRemoteSigner({ name: 'aws-kms', current: key(config.keyId), retired: config.retiredKeyIds.map(key) }), 'signer-aws-kms');
  },
} satisfies Plugin;
