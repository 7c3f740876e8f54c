/**
 * SHA3-256 (FIPS 202), streaming, for `trace_hash` and the `evidence_ledger` of certificates.
 *
 * @noble/hashes runs everywhere; the platform's native SHA3-256 (`capabilities.nativeSha3`, node:crypto/OpenSSL
 * on Node) is used when the runtime offers it because it is several times faster. Both produce identical
 * digests (tested against the NIST vectors). Streams are hashed chunk by chunk, so memory stays constant
 * whatever the size of a trace.
 */
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { IncrementalHash, RuntimeCapabilities } from '../capabilities.ts';

/** The `hash_algorithm` value of certificates. */
export const HASH_ALGORITHM = 'sha3_256';

/** A SHA3-256 digest as 64 lower-case hex characters. */
export type HexDigest = string;

const encoder = new TextEncoder();

/** A portable incremental SHA3-256 (@noble/hashes). */
export function nobleSha3(): IncrementalHash {
  return wrapNoble(sha3_256.create());
}

function wrapNoble(hash: ReturnType<typeof sha3_256.create>): IncrementalHash {
  const incremental: IncrementalHash = {
    update(chunk) {
      hash.update(chunk);
      return incremental;
    },
    digest: () => hash.digest(),
    copy: () => wrapNoble(hash.clone()),
  };
  return incremental;
}

/** Source of incremental SHA3-256 hashers: native when the runtime has one, @noble/hashes otherwise. */
export type Sha3Factory = () => IncrementalHash;

/** The fastest SHA3-256 the runtime offers. */
export function sha3Factory(capabilities?: Pick<RuntimeCapabilities, 'nativeSha3'>): Sha3Factory {
  return capabilities?.nativeSha3 ?? nobleSha3;
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/** SHA3-256 of bytes or of a string's UTF-8 encoding, as hex. */
export function sha3Hex(input: Uint8Array | string, factory: Sha3Factory = nobleSha3): HexDigest {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  return toHex(factory().update(bytes).digest());
}

/** Result of hashing a stream: the digest and how many bytes it covered. */
export interface StreamDigest {
  hex: HexDigest;
  bytes: number;
}

/**
 * SHA3-256 of a byte stream, read chunk by chunk (constant memory). The reader is released on error.
 * @param stream any web `ReadableStream` of bytes (a store stream, a file stream, a response body)
 * @param factory from `sha3Factory(capabilities)`
 */
export async function sha3Stream(stream: ReadableStream<Uint8Array>, factory: Sha3Factory = nobleSha3): Promise<StreamDigest> {
  const hash = factory();
  const reader = stream.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hash.update(value);
      bytes += value.byteLength;
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
  return { hex: toHex(hash.digest()), bytes };
}

/** True for a 64-character hex digest (either case, as the certificate schema allows). */
export function isHexDigest(value: unknown): value is HexDigest {
  return typeof value === 'string' && /^[a-fA-F0-9]{64}$/.test(value);
}

/** Compares two hex digests case-insensitively without an early exit. */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= left.charCodeAt(index) ^ right.charCodeAt(index);
  return difference === 0;
}
