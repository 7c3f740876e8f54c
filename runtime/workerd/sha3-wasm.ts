/**
 * SHA3-256 (FIPS 202) on workerd through WebAssembly: workerd has no SHA3 (neither WebCrypto nor node:crypto),
 * and @noble/hashes' JavaScript Keccak is 10–30 times slower than OpenSSL, which makes re-hashing a 1 MiB
 * trace cost a verification server a third of its time. The Keccak here is hash-wasm's (C compiled to
 * WebAssembly, MIT): the build extracts its binary (scripts/build-workerd.mjs) and the worker imports it as a
 * compiled module, since workerd compiles no WebAssembly from bytes at run time. This file is only the glue:
 * one instance, whose 400-byte state each hash saves and restores around its updates, so any number of
 * hashes (streams being verified, handoff tokens) can be in progress at once.
 */
import type { IncrementalHash } from '../../core/capabilities.ts';

interface Sha3Exports {
  memory: WebAssembly.Memory;
  Hash_GetBuffer(): number;
  Hash_GetState(): number;
  Hash_Init(bits: number): void;
  Hash_Update(length: number): void;
  Hash_Final(padding: number): void;
  STATE_SIZE: WebAssembly.Global;
}

/** Bytes the module's input buffer holds (hash-wasm's MAX_HEAP). */
const BUFFER_BYTES = 16 * 1024;
/** The SHA-3 domain padding (FIPS 202), as opposed to Keccak's 0x01. */
const SHA3_PADDING = 0x06;
const DIGEST_BYTES = 32;

/** A SHA3-256 factory over hash-wasm's compiled `sha3` module. */
export function wasmSha3(module: WebAssembly.Module): () => IncrementalHash {
  const exports = new WebAssembly.Instance(module, {}).exports as unknown as Sha3Exports;
  const stateSize = new DataView(exports.memory.buffer).getUint32(Number(exports.STATE_SIZE.value), true);
  const bufferAt = exports.Hash_GetBuffer();
  const stateAt = exports.Hash_GetState();
  // Views are taken per call: they would be detached if the memory ever grew.
  const stateView = () => new Uint8Array(exports.memory.buffer, stateAt, stateSize);
  const bufferView = () => new Uint8Array(exports.memory.buffer, bufferAt, BUFFER_BYTES);

  function hashFrom(state: Uint8Array): IncrementalHash {
    let finished = false;
    const hash: IncrementalHash = {
      update(chunk) {
        if (finished) throw new Error('SHA3-256: update after digest');
        stateView().set(state);
        for (let offset = 0; offset < chunk.length; offset += BUFFER_BYTES) {
          const part = chunk.subarray(offset, offset + BUFFER_BYTES);
          bufferView().set(part);
          exports.Hash_Update(part.length);
        }
        state.set(stateView());
        return hash;
      },
      digest() {
        if (finished) throw new Error('SHA3-256: digest called twice');
        finished = true;
        stateView().set(state);
        exports.Hash_Final(SHA3_PADDING);
        return bufferView().slice(0, DIGEST_BYTES);
      },
      copy: () => hashFrom(state.slice()),
    };
    return hash;
  }

  return () => {
    exports.Hash_Init(256);
    return hashFrom(stateView().slice());
  };
}
