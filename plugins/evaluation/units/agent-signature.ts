/**
 * An agent's own signature over its output (`AgentReply.signature`: `{identity, jws}`) is checked here, before
 * it reaches the trace. It counts only when the compact JWS (RFC 7515) verifies against a key pinned for that
 * agent in its spec, `agent.signature_key` (`{identity, jwk}` or `{identity, jwks_url}`, the key set fetched
 * through the SSRF guard), its payload is exactly the UTF-8 bytes of the output, and the claimed identity is
 * the pinned one. Only such a signature is recorded as `signature` (and becomes an `Agent` provenance entry);
 * anything else is kept as `unverified_agent_claim` (redacted, length-capped) and never signed by us.
 * See docs/certificates.md, "Agent entries".
 */
import { compactVerify } from 'jose/jws/compact/verify';
import { createLocalJWKSet } from 'jose/jwks/local';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { importJWK } from 'jose/key/import';
import type { JWK, CryptoKey as JoseKey, JWSHeaderParameters } from 'jose';
import type { AgentReply } from '../../../core/agent-adapter.ts';
import type { AgentSpec } from '../../../core/domain/scenario.ts';
import { redactText } from '../../../core/guards/redact.ts';
import type { GuardedFetch } from '../../../core/capabilities.ts';

/** `agent.signature_key` of a scenario. */
export type SignatureKey = { identity: string; jwk: JWK } | { identity: string; jwks_url: string };

/** A signature that verified against the agent's pinned key. */
export interface VerifiedAgentSignature {
  identity: string;
  jws: string;
  verified: true;
  kid?: string;
}

/** What is recorded of a signature that did not verify, or that no key was pinned for. */
export interface UnverifiedAgentClaim {
  identity: string;
  reason: string;
}

/** Asymmetric algorithms only: a shared-secret JWS (HS256) proves nothing about who signed. */
export const AGENT_SIGNATURE_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'];
const CLAIM_LIMIT = 200;
const JWKS_MAX_BYTES = 64 * 1024;
const JWKS_TIMEOUT_MS = 5000;
const encoder = new TextEncoder();

type KeySource = (header: JWSHeaderParameters) => Promise<JoseKey | Uint8Array>;
// One key source per agent spec (a run's plan holds one spec object), so a JWKS is fetched once per run.
const keySources = new WeakMap<object, Promise<KeySource>>();

/** The `signature_key` of a spec, or `null` when none is pinned or it has no usable shape. */
export function pinnedKeyOf(spec: AgentSpec): SignatureKey | null {
  const key = spec.signature_key as Partial<SignatureKey & { jwk: JWK; jwks_url: string }> | undefined;
  if (!key || typeof key !== 'object' || typeof key.identity !== 'string') return null;
  if (key.jwk && typeof key.jwk === 'object') return { identity: key.identity, jwk: key.jwk };
  if (typeof key.jwks_url === 'string') return { identity: key.identity, jwks_url: key.jwks_url };
  return null;
}

function publicOnly(jwk: JWK): JWK {
  // A private member pasted into a scenario must never become a key we hold.
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, k: _k, oth: _oth, ...rest } = jwk as JWK & Record<string, unknown>;
  return rest as JWK;
}

async function loadKeySource(pinned: SignatureKey, fetch: GuardedFetch): Promise<KeySource> {
  if ('jwk' in pinned) {
    const jwk = publicOnly(pinned.jwk);
    return async (header) => {
      if (jwk.alg && jwk.alg !== header.alg) throw new Error(`the pinned key is for ${jwk.alg}`);
      return importJWK(jwk, header.alg) as Promise<JoseKey | Uint8Array>;
    };
  }
  const response = await fetch(pinned.jwks_url, { headers: { accept: 'application/json' }, timeoutMs: JWKS_TIMEOUT_MS, maxBytes: JWKS_MAX_BYTES });
  if (!response.ok) throw new Error(`the pinned key set answered HTTP ${response.status}`);
  const body = (await response.json()) as { keys?: unknown };
  if (!Array.isArray(body?.keys)) throw new Error('the pinned key set has no "keys" array');
  return createLocalJWKSet({ keys: (body.keys as JWK[]).filter((key) => key && typeof key === 'object').map(publicOnly) }) as unknown as KeySource;
}

function keySourceFor(spec: AgentSpec, pinned: SignatureKey, fetch: GuardedFetch): Promise<KeySource> {
  let source = keySources.get(spec);
  if (!source) {
    source = loadKeySource(pinned, fetch);
    keySources.set(spec, source);
  }
  return source;
}

const capped = (text: string) => redactText(text.length > CLAIM_LIMIT ? `${text.slice(0, CLAIM_LIMIT)}…` : text);

/**
 * Checks an agent's signature over `output` against the key pinned in its spec: the trace fields to record,
 * `signature` when it verified, `unverified_agent_claim` otherwise.
 */
export async function checkAgentSignature(signature: NonNullable<AgentReply['signature']>, output: string, spec: AgentSpec, fetch: GuardedFetch): Promise<{ signature: VerifiedAgentSignature } | { unverified_agent_claim: UnverifiedAgentClaim }> {
  const claim = (reason: string) => ({ unverified_agent_claim: { identity: capped(String(signature.identity)), reason: capped(reason) } });
  const pinned = pinnedKeyOf(spec);
  if (!pinned) return claim('no signature_key is pinned for this agent; the identity is unchecked');
  if (signature.identity !== pinned.identity) return claim(`the claimed identity is not the pinned one ("${pinned.identity}")`);
  let header: JWSHeaderParameters;
  try {
    header = decodeProtectedHeader(signature.jws);
  } catch {
    return claim('the signature is not a compact JWS');
  }
  if (!AGENT_SIGNATURE_ALGORITHMS.includes(String(header.alg))) return claim(`JWS alg ${JSON.stringify(header.alg)} is not accepted (${AGENT_SIGNATURE_ALGORITHMS.join(', ')})`);
  let payload: Uint8Array;
  try {
    const source = await keySourceFor(spec, pinned, fetch);
    // Key references inside the JWS (jku, jwk, x5u) are never followed: only the pinned key counts.
    ({ payload } = await compactVerify(signature.jws, source as never, { algorithms: AGENT_SIGNATURE_ALGORITHMS }));
  } catch (error) {
    return claim(`the signature does not verify against the pinned key (${(error as Error).message})`);
  }
  const expected = encoder.encode(output);
  if (payload.length !== expected.length || payload.some((byte, index) => byte !== expected[index])) return claim('the signed payload is not this output');
  return { signature: { identity: pinned.identity, jws: signature.jws, verified: true, ...(typeof header.kid === 'string' ? { kid: header.kid } : {}) } };
}
