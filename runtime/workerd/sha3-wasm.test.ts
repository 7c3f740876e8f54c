import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha3WasmBinary } from '../../scripts/build-workerd.mjs';
import { nobleSha3, sha3Stream, toHex } from '../../core/domain/hash.ts';
import { wasmSha3 } from './sha3-wasm.ts';

const factory = wasmSha3(new WebAssembly.Module(sha3WasmBinary()));
const opensslHex = (bytes: Uint8Array) => createHash('sha3-256').update(bytes).digest('hex');

describe('runtime: workerd SHA3-256 (hash-wasm WebAssembly)', () => {
  it('matches the FIPS 202 vectors', () => {
    expect(toHex(factory().digest())).toBe('a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a');
    expect(toHex(factory().update(new TextEncoder().encode('abc')).digest())).toBe('3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532');
  });

  it('matches OpenSSL on any bytes, however they are split', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40_000 }), fc.array(fc.nat(40_000), { maxLength: 6 }), (bytes, cuts) => {
      const hash = factory();
      let at = 0;
      for (const cut of [...cuts].sort((a, b) => a - b)) {
        hash.update(bytes.subarray(at, Math.max(at, cut)));
        at = Math.max(at, cut);
      }
      hash.update(bytes.subarray(at));
      expect(toHex(hash.digest())).toBe(opensslHex(bytes));
    }), { numRuns: 60 });
  });

  it('keeps interleaved hashes apart (one instance, a state per hash)', () => {
    const a = new Uint8Array(50_000).map((_, i) => i % 251);
    const b = new Uint8Array(30_000).map((_, i) => (i * 7) % 253);
    const [first, second] = [factory(), factory()];
    for (let at = 0; at < 50_000; at += 10_000) {
      first.update(a.subarray(at, at + 10_000));
      second.update(b.subarray(at, at + 10_000));
    }
    expect(toHex(second.digest())).toBe(opensslHex(b));
    expect(toHex(first.digest())).toBe(opensslHex(a));
  });

  it('copies its state mid-stream (handoff tokens) and refuses use after digest', () => {
    const hash = factory().update(new TextEncoder().encode('first half, '));
    const copy = hash.copy!();
    expect(toHex(copy.digest())).toBe(opensslHex(new TextEncoder().encode('first half, ')));
    hash.update(new TextEncoder().encode('second half'));
    expect(toHex(hash.digest())).toBe(opensslHex(new TextEncoder().encode('first half, second half')));
    expect(() => hash.update(new Uint8Array(1))).toThrow(/after digest/);
  });

  it('hashes a stream as the core does, to the same digest as @noble/hashes', async () => {
    const bytes = new Uint8Array(1 << 20).map((_, i) => (i * 31) % 256);
    const stream = new Blob([bytes]).stream();
    expect((await sha3Stream(stream, factory)).hex).toBe(toHex(nobleSha3().update(bytes).digest()));
  });
});
