/**
 * Scoped API keys as stored: `api-keys/<id>.json` holds a key's name, grants, dates and a keyed hash of its
 * secret (HMAC-SHA-256 under a random deployment key kept in the same store, so every instance sharing the store
 * checks the same keys). A random 256-bit secret needs no slow KDF; the keyed hash means a copy of the records
 * alone cannot be used to test guesses offline. The secret itself is shown once, when the key is created.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, randomBytes } from '@noble/hashes/utils.js';
import type { Store } from '../../core/storage.ts';
import * as base64url from 'jose/base64url';
import { constantTimeEqual } from '../../core/guards/secrets.ts';

/** `aeh_k_<id>_<secret>`: the prefix tells the provider the credential is one of these. */
export const KEY_PREFIX = 'aeh_k_';
const TOKEN = /^aeh_k_([a-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export interface ApiKeyRecord {
  id: string;
  name: string;
  /** The first characters of the token (`aeh_k_<id>`), to recognise it in a list; not secret. */
  prefix: string;
  roles: string[];
  permissions: string[];
  created_at: string;
  created_by: string;
  expires_at?: string;
  revoked_at?: string;
  revoked_by?: string;
  /** hex HMAC-SHA-256 of the secret under the deployment key. */
  hash: string;
}

/** A record as the API shows it: everything but the hash, and when it was last used (to the minute). */
export type ApiKeyView = Omit<ApiKeyRecord, 'hash'> & { last_used_at?: string };

export const recordKey = (id: string) => `api-keys/${id}.json`;
export const nameKey = (name: string) => `api-key-names/${name.toLowerCase()}.json`;
/** When a key was last used (written apart from the record, which only create and revoke write). */
export const usageKey = (id: string) => `api-key-usage/${id}.json`;
const HMAC_KEY = 'identity/api-key-hmac.json';

export async function view(store: Store, { hash: _hash, ...rest }: ApiKeyRecord): Promise<ApiKeyView> {
  const usage = await store.getJson<{ last_used_at?: string }>(usageKey(rest.id));
  return usage?.last_used_at ? { ...rest, last_used_at: usage.last_used_at } : rest;
}

/** The deployment's HMAC key: created once by whichever instance gets there first, then read by all. */
export async function hmacKey(store: Store): Promise<Uint8Array> {
  await store.setIfAbsent(HMAC_KEY, JSON.stringify({ key: bytesToHex(randomBytes(32)) }));
  const stored = await store.getJson<{ key: string }>(HMAC_KEY);
  if (!stored?.key) throw new Error('the API key HMAC key could not be read back from storage');
  return hexToBytes(stored.key);
}

export function hashSecret(key: Uint8Array, secret: string): string {
  return bytesToHex(hmac(sha256, key, new TextEncoder().encode(secret)));
}

/** A new id and secret, and the token the caller is shown once. */
export function newToken(): { id: string; secret: string; token: string } {
  const id = bytesToHex(randomBytes(8));
  const secret = base64url.encode(randomBytes(32));
  return { id, secret, token: `${KEY_PREFIX}${id}_${secret}` };
}

/** The id and secret of a token of this form, or `undefined` (the regex is anchored and linear). */
export function parseToken(value: string): { id: string; secret: string } | undefined {
  if (value.length > 80) return undefined;
  const match = TOKEN.exec(value);
  return match ? { id: match[1], secret: match[2] } : undefined;
}

export function secretMatches(record: ApiKeyRecord, key: Uint8Array, secret: string): boolean {
  return constantTimeEqual(hashSecret(key, secret), record.hash);
}
