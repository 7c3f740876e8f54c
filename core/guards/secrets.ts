/** Comparing secrets without leaking where they differ through timing. */
import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

function equalDigests(left: Uint8Array, right: Uint8Array): boolean {
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= left[index] ^ right[index];
  return difference === 0;
}

/** Compares two secrets in time independent of where they differ (both are hashed to equal length first). */
export function constantTimeEqual(a: string, b: string): boolean {
  return equalDigests(sha256(encoder.encode(a)), sha256(encoder.encode(b)));
}

/**
 * A constant-time comparison against one fixed secret, for the static key checked on every protected request.
 * Its time does not depend on where a candidate of the right length differs; a candidate of another length is
 * refused at once, which tells only the key's length (64 hex characters is what the spec recommends anyway) and
 * spares hashing every request.
 */
export function secretMatcher(secret: string): (candidate: string) => boolean {
  return function matchesSecret(candidate) {
    if (candidate.length !== secret.length) return false;
    let difference = 0;
    for (let index = 0; index < secret.length; index++) difference |= secret.charCodeAt(index) ^ candidate.charCodeAt(index);
    return difference === 0;
  };
}
