import { describe, it, expect } from 'vitest';
import { CompactSign, exportJWK, generateKeyPair, type JWK } from 'jose';
import { checkAgentSignature } from './agent-signature.ts';
import type { GuardedFetch } from '../../../core/capabilities.ts';

const encoder = new TextEncoder();
const OUTPUT = 'Your balance is 42 EUR.';
const IDENTITY = 'agent:support-bot';

async function keyPair(alg: 'EdDSA' | 'ES256' = 'EdDSA') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `${alg}-1` } as JWK, alg };
}

async function sign(payload: string, key: { privateKey: CryptoKey; alg: string; jwk: JWK }, header: Record<string, unknown> = {}) {
  return new CompactSign(encoder.encode(payload)).setProtectedHeader({ alg: key.alg, kid: key.jwk.kid, ...header }).sign(key.privateKey);
}

const noFetch: GuardedFetch = async () => {
  throw new Error('no network in this test');
};

describe('evaluation: agent signatures', () => {
  it('records a forged identity without a pinned key as an unverified claim, never as a signature', async () => {
    const checked = await checkAgentSignature({ identity: 'Acme Bank production agent (KYC-verified)', jws: 'not-a-jws' }, OUTPUT, { adapter: 'http' }, noFetch);
    expect(checked).toEqual({ unverified_agent_claim: { identity: 'Acme Bank production agent (KYC-verified)', reason: expect.stringContaining('no signature_key is pinned') } });
  });

  it('accepts a JWS over the exact output that verifies against the pinned JWK', async () => {
    const key = await keyPair();
    const jws = await sign(OUTPUT, key);
    const checked = await checkAgentSignature({ identity: IDENTITY, jws }, OUTPUT, { adapter: 'http', signature_key: { identity: IDENTITY, jwk: key.jwk } }, noFetch);
    expect(checked).toEqual({ signature: { identity: IDENTITY, jws, verified: true, kid: 'EdDSA-1' } });
  });

  it('refuses a JWS signed by another key, naming why (wrong key)', async () => {
    const pinned = await keyPair();
    const other = await keyPair();
    const jws = await sign(OUTPUT, { ...other, jwk: { ...other.jwk, kid: pinned.jwk.kid } });
    const checked = await checkAgentSignature({ identity: IDENTITY, jws }, OUTPUT, { adapter: 'http', signature_key: { identity: IDENTITY, jwk: pinned.jwk } }, noFetch);
    expect(checked).toMatchObject({ unverified_agent_claim: { identity: IDENTITY, reason: expect.stringContaining('does not verify against the pinned key') } });
  });

  it('refuses a valid JWS over other bytes, another identity than the pinned one, and a non-JWS', async () => {
    const key = await keyPair();
    const spec = { adapter: 'http', signature_key: { identity: IDENTITY, jwk: key.jwk } };
    expect(await checkAgentSignature({ identity: IDENTITY, jws: await sign('I approve every loan.', key) }, OUTPUT, spec, noFetch)).toMatchObject({ unverified_agent_claim: { reason: 'the signed payload is not this output' } });
    expect(await checkAgentSignature({ identity: 'Acme Bank (KYC-verified)', jws: await sign(OUTPUT, key) }, OUTPUT, spec, noFetch)).toMatchObject({ unverified_agent_claim: { identity: 'Acme Bank (KYC-verified)', reason: expect.stringContaining('not the pinned one') } });
    expect(await checkAgentSignature({ identity: IDENTITY, jws: 'not-a-jws' }, OUTPUT, spec, noFetch)).toMatchObject({ unverified_agent_claim: { reason: 'the signature is not a compact JWS' } });
  });

  it('refuses a shared-secret JWS (HS256) and never follows a key embedded in the JWS header', async () => {
    const key = await keyPair();
    const spec = { adapter: 'http', signature_key: { identity: IDENTITY, jwk: key.jwk } };
    const hs = await new CompactSign(encoder.encode(OUTPUT)).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32));
    expect(await checkAgentSignature({ identity: IDENTITY, jws: hs }, OUTPUT, spec, noFetch)).toMatchObject({ unverified_agent_claim: { reason: expect.stringContaining('HS256') } });
    const attacker = await keyPair();
    const embedded = await sign(OUTPUT, attacker, { jwk: attacker.jwk, jku: 'https://attacker.test/jwks.json' });
    expect(await checkAgentSignature({ identity: IDENTITY, jws: embedded }, OUTPUT, spec, noFetch)).toHaveProperty('unverified_agent_claim');
  });

  it('verifies against a pinned JWKS URL fetched once per agent spec through the guarded fetch', async () => {
    const key = await keyPair('ES256');
    const fetched: string[] = [];
    const fetch: GuardedFetch = async (url) => {
      fetched.push(String(url));
      return Response.json({ keys: [key.jwk] });
    };
    const spec = { adapter: 'http', signature_key: { identity: IDENTITY, jwks_url: 'https://keys.agent.test/jwks.json' } };
    for (let index = 0; index < 3; index++) {
      expect(await checkAgentSignature({ identity: IDENTITY, jws: await sign(OUTPUT, key) }, OUTPUT, spec, fetch)).toHaveProperty('signature.verified', true);
    }
    expect(fetched).toEqual(['https://keys.agent.test/jwks.json']);
    const unreachable = { adapter: 'http', signature_key: { identity: IDENTITY, jwks_url: 'https://down.agent.test/jwks.json' } };
    expect(await checkAgentSignature({ identity: IDENTITY, jws: await sign(OUTPUT, key) }, OUTPUT, unreachable, noFetch)).toMatchObject({ unverified_agent_claim: { reason: expect.stringContaining('no network') } });
  });

  it('caps and redacts what it records of a claim', async () => {
    const checked = await checkAgentSignature({ identity: `Bearer abcdefghijklmnop ${'x'.repeat(5000)}`, jws: 'x' }, OUTPUT, { adapter: 'http' }, noFetch);
    const claim = (checked as { unverified_agent_claim: { identity: string } }).unverified_agent_claim;
    expect(claim.identity.length).toBeLessThanOrEqual(201);
    expect(claim.identity).not.toContain('abcdefghijklmnop');
  });
});
