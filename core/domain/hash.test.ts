import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { nobleSha3, sha3Factory, sha3Hex, sha3Stream, digestsEqual, isHexDigest, type Sha3Factory } from './hash.ts';
import { nodeSha3 } from '../../runtime/node/capabilities.ts';

// FIPS 202 / NIST CSRC example values for SHA3-256.
const EMPTY = 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a';
const ABC = '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532';
const MILLION_A = '5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]);
      else controller.close();
    },
  });
}

const implementations: Array<[string, Sha3Factory]> = [['@noble/hashes', nobleSha3], ['native (node:crypto)', nodeSha3]];

describe('core: hash (SHA3-256)', () => {
  for (const [name, factory] of implementations) {
    it(`${name} matches the NIST vectors`, async () => {
      expect(sha3Hex('', factory)).toBe(EMPTY);
      expect(sha3Hex('abc', factory)).toBe(ABC);
      // 1,000,000 × "a", streamed in uneven chunks so no single buffer holds the message.
      const chunk = new TextEncoder().encode('a'.repeat(999));
      const chunks: Uint8Array[] = [];
      let left = 1_000_000;
      while (left > 0) {
        chunks.push(chunk.subarray(0, Math.min(chunk.length, left)));
        left -= Math.min(chunk.length, left);
      }
      const digest = await sha3Stream(streamOf(chunks), factory);
      expect(digest).toEqual({ hex: MILLION_A, bytes: 1_000_000 });
    });
  }

  it('prefers the native hash when the runtime offers one, @noble/hashes otherwise', () => {
    expect(sha3Factory({ nativeSha3: nodeSha3 })).toBe(nodeSha3);
    expect(sha3Factory({})).toBe(nobleSha3);
    expect(sha3Factory()).toBe(nobleSha3);
  });

  it('gives identical digests for any chunking, native and portable alike', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.array(fc.nat({ max: 700 }), { maxLength: 12 }), async (bytes, cuts) => {
        const chunks: Uint8Array[] = [];
        let offset = 0;
        for (const cut of cuts) {
          chunks.push(bytes.subarray(offset, Math.min(bytes.length, offset + cut)));
          offset = Math.min(bytes.length, offset + cut);
        }
        chunks.push(bytes.subarray(offset));
        const reference = createHash('sha3-256').update(bytes).digest('hex');
        expect((await sha3Stream(streamOf(chunks), nobleSha3)).hex).toBe(reference);
        expect((await sha3Stream(streamOf(chunks), nodeSha3)).hex).toBe(reference);
      }),
      { numRuns: 60 },
    );
  });

  it('hashes a 64 MiB stream chunk by chunk (one 1 MiB buffer reused)', async () => {
    const chunk = new Uint8Array(1 << 20).fill(0x5a);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const reference = createHash('sha3-256');
    for (let i = 0; i < 64; i++) reference.update(chunk);
    expect(await sha3Stream(stream, nodeSha3)).toEqual({ hex: reference.digest('hex'), bytes: 64 << 20 });
  });

  it('propagates a stream error instead of returning a digest of part of the bytes', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.error(new Error('disk gone'));
      },
    });
    await expect(sha3Stream(broken)).rejects.toThrow('disk gone');
  });

  it('compares digests case-insensitively and recognises hex digests', () => {
    expect(digestsEqual(ABC, ABC.toUpperCase())).toBe(true);
    expect(digestsEqual(ABC, EMPTY)).toBe(false);
    expect(digestsEqual(ABC, ABC.slice(1))).toBe(false);
    expect(isHexDigest(ABC)).toBe(true);
    expect(isHexDigest(ABC.slice(2))).toBe(false);
    expect(isHexDigest(`${ABC.slice(1)}g`)).toBe(false);
  });
});
