/**
 * Hashing a stored file (`Store.hashInto` of the fs store: public verify re-hashes traces with it): read in
 * slices that stay in the CPU's cache between the kernel's copy and the hash, into buffers kept between calls.
 */
import { close, closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import type { IncrementalHash } from '../../core/capabilities.ts';
import { call, missing } from './fs-write.ts';

/** Read buffers for `hashInto`, reused so that hashing a trace allocates (and page-faults) no memory. */
function createBufferPool(size: number, keep: number) {
  const free: Buffer[] = [];
  return {
    take: () => free.pop() ?? Buffer.allocUnsafeSlow(size),
    give(buffer: Buffer) {
      if (free.length < keep) free.push(buffer);
    },
  };
}

type BufferPool = ReturnType<typeof createBufferPool>;

/**
 * How much of a file `feedSync` reads at a time: a slice that stays in the CPU's cache between the kernel's copy
 * and the hash. Reading 1 MiB whole and then hashing it costs ~1.2x the CPU of the bare hash of the same bytes;
 * 64-256 KiB slices ~1.04x (`node bench/hash-slices.mjs`).
 */
const SYNC_SLICE = 64 << 10;

/**
 * Files below this size are read synchronously by `hashFileInto`, slice by slice, into a buffer of one slice.
 * Its own buffer, not a slice of the 2 MiB one: on this project's Linux hosts a read into a large buffer (one
 * malloc maps apart from its heap) cost ~450 µs per MiB against ~100 µs into a 64 KiB one, though only its
 * first 64 KiB were written (`node bench/hash-slices.mjs`), which was most of what public verify spent beyond
 * the hash (issue 36).
 */
const SYNC_HASH_MAX = 2 << 20;

/** Reads a file of `size` bytes into the hash, one slice at a time, synchronously. */
const feedSync = (fd: number, size: number, buffer: Buffer, hash: IncrementalHash): number => {
  let total = 0;
  for (;;) {
    // One byte more than what remains: a short read proves the end without another read.
    const wanted = Math.min(Math.max(size - total, 0) + 1, SYNC_SLICE);
    const bytesRead = readSync(fd, buffer, 0, wanted, null);
    if (bytesRead > 0) hash.update(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (bytesRead < wanted) return total;
  }
};

export async function hashFileInto(path: string, hash: IncrementalHash, pools: HashBuffers): Promise<number | null> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
  let sync = true;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    if (stat.size < SYNC_HASH_MAX) {
      const slice = pools.slices.take();
      try {
        return feedSync(fd, stat.size, slice, hash);
      } finally {
        pools.slices.give(slice);
      }
    }
    sync = false;
    const large = pools.large.take();
    try {
      let total = 0;
      for (;;) {
        const wanted = Math.min(Math.max(stat.size - total, 0) + 1, large.length);
        const bytesRead = await call<number>((done) => read(fd, large, 0, wanted, null, done));
        if (bytesRead > 0) hash.update(large.subarray(0, bytesRead));
        total += bytesRead;
        if (bytesRead < wanted) return total;
      }
    } finally {
      pools.large.give(large);
    }
  } finally {
    if (sync) closeSync(fd);
    else await new Promise<void>((resolve) => close(fd, () => resolve()));
  }
}

/** A store's read buffers for hashing, by the way a file is read. */
export interface HashBuffers {
  slices: BufferPool;
  large: BufferPool;
}

/**
 * One 64 KiB slice buffer per verification in flight for files under SYNC_HASH_MAX (read synchronously); 2 MiB
 * reads for larger ones, asynchronously. Four of each are kept, so four verifications at once allocate nothing.
 */
export function createHashBuffers(): HashBuffers {
  return { slices: createBufferPool(SYNC_SLICE, 4), large: createBufferPool(2 << 20, 4) };
}
