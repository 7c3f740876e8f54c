/**
 * The handoff protocol (service-spec.md design rule 1: "the engine is stateless; scenario state is carried in
 * JWTs"). After each step the engine signs the state of a run — what runs next, the topology position and the
 * SHA3-256 of the trace so far — into a compact JWS (RFC 7519, HS256) stored with the task. Any instance that
 * shares the store holds the key and can continue the run from the token, after verifying its signature,
 * expiry and the trace digest; nothing about a run lives only in one process's memory.
 */
import * as joseErrors from 'jose/errors';
import type { Store } from '../../../core/storage.ts';
import { digestsEqual } from '../../../core/domain/hash.ts';

/** What a handoff token carries. */
export interface HandoffState {
  run_id: string;
  task_id: string;
  /** Index of the next unit of work (a scenario task of the original or of a variant). */
  next: number;
  /** Units in the run. */
  total: number;
  /** Checkpoints issued before this one. */
  step: number;
  /** `running` while units remain; `finishing` once the trace is final and only the results remain to write. */
  phase: 'running' | 'finishing';
  /** The topology agent of the next unit and its index in `scenario.topology` (`null` when it names none). */
  position: { agent: string | null; index: number | null };
  /** The stored trace this state continues: next sequence number, byte length and SHA3-256 (hex). */
  trace: { seq: number; bytes: number; digest: string };
  /** SHA3-256 (hex) of the stored `scenario.json` the run executes. */
  scenario_digest: string;
}

/** Why a token was refused. */
export class HandoffError extends Error {
  constructor(readonly reason: 'signature' | 'expired' | 'claims' | 'digest', message: string) {
    super(message);
    this.name = 'HandoffError';
  }
}

/** The storage key of the signing secret, shared by every instance on the store. */
export const HANDOFF_SECRET_KEY = 'secrets/handoff-hs256';
const ISSUER = 'aeh-engine';
const TOKEN_TYPE = 'aeh-handoff+jwt';
/** Default lifetime of a token: a run left unfinished for longer is not resumed. */
export const HANDOFF_TTL_SECONDS = 7 * 24 * 3600;

const keys = new WeakMap<Store, Promise<CryptoKey>>();

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/**
 * The HMAC key of the store: generated once (32 random bytes, first writer wins) and kept in storage, so every
 * instance sharing the store signs and verifies with the same key. Cached per store.
 */
export function handoffKey(store: Store): Promise<CryptoKey> {
  let key = keys.get(store);
  if (!key) {
    key = (async () => {
      await store.setIfAbsent(HANDOFF_SECRET_KEY, randomSecret());
      const stored = new TextDecoder().decode((await store.getBytes(HANDOFF_SECRET_KEY)) ?? new Uint8Array()).trim();
      if (!/^[0-9a-f]{64}$/.test(stored)) throw new Error(`the handoff secret at ${HANDOFF_SECRET_KEY} is damaged; remove it to generate a new one (unfinished runs will not resume)`);
      return crypto.subtle.importKey('raw', hexToBytes(stored), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    })();
    key.catch(() => keys.delete(store));
    keys.set(store, key);
  }
  return key;
}

/** Signs a handoff state (HS256) valid for `ttlSeconds` from `now`. */
export async function signHandoff(state: HandoffState, key: CryptoKey, options: { now: number; ttlSeconds?: number }): Promise<string> {
  const issuedAt = Math.floor(options.now / 1000);
  // jose's JWT modules load with the first handoff (scale-out), not with every start (issue 36).
  const { SignJWT } = await import('jose/jwt/sign');
  return new SignJWT({ state })
    .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE })
    .setIssuer(ISSUER)
    .setSubject(state.run_id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (options.ttlSeconds ?? HANDOFF_TTL_SECONDS))
    .sign(key);
}

/**
 * Verifies a token's signature, type, issuer and expiry (no leeway: the engine's own clock signed it) and that
 * it belongs to the expected run and task; returns the state. Throws `HandoffError`.
 */
export async function verifyHandoff(token: string, key: CryptoKey, expected: { now: number; runId: string; taskId: string }): Promise<HandoffState> {
  let payload: Record<string, unknown>;
  const { jwtVerify } = await import('jose/jwt/verify');
  try {
    ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, typ: TOKEN_TYPE, currentDate: new Date(expected.now) }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new HandoffError('expired', 'the handoff token has expired');
    throw new HandoffError('signature', `the handoff token is not valid: ${(error as Error).message}`);
  }
  const state = payload.state as HandoffState | undefined;
  if (!state || typeof state !== 'object' || payload.sub !== state.run_id || state.run_id !== expected.runId || state.task_id !== expected.taskId
    || !Number.isInteger(state.next) || !Number.isInteger(state.total) || !state.trace || !Number.isInteger(state.trace.bytes) || !Number.isInteger(state.trace.seq)) {
    throw new HandoffError('claims', 'the handoff token does not describe this run');
  }
  return state;
}

/** Checks that `actual` (hex) is the digest the token promised, in constant time. */
export function assertDigest(what: string, promised: string, actual: string): void {
  if (!digestsEqual(promised, actual)) throw new HandoffError('digest', `the ${what} does not match the digest in the handoff token`);
}
