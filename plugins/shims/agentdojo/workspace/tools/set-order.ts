/**
 * `list(set(items))` in CPython 3.11 with PYTHONHASHSEED=0: the order Calendar.create_event leaves an event's
 * participants in. CPython hashes a str with SipHash-1-3 over its internal bytes (1, 2 or 4 per character by the
 * widest one) under the hash secret, which PYTHONHASHSEED=0 makes all zeros; a set places each hash in an open
 * addressed table (8 slots to start, linear probes then perturbation, grown past 3/5 full) and iterates it slot by
 * slot. Under a random seed the reference's own order changes from run to run; seed 0 is the one the fidelity
 * fixture records (bench/agentdojo/travel_workspace_reference.py runs with PYTHONHASHSEED=0).
 */
const MASK64 = (1n << 64n) - 1n;
const rotl = (x: bigint, b: bigint) => ((x << b) | (x >> (64n - b))) & MASK64;

function sipRound(v: bigint[]): void {
  v[0] = (v[0] + v[1]) & MASK64; v[1] = rotl(v[1], 13n); v[1] ^= v[0]; v[0] = rotl(v[0], 32n);
  v[2] = (v[2] + v[3]) & MASK64; v[3] = rotl(v[3], 16n); v[3] ^= v[2];
  v[0] = (v[0] + v[3]) & MASK64; v[3] = rotl(v[3], 21n); v[3] ^= v[0];
  v[2] = (v[2] + v[1]) & MASK64; v[1] = rotl(v[1], 17n); v[1] ^= v[2]; v[2] = rotl(v[2], 32n);
}

function siphash13(bytes: Uint8Array): bigint {
  const v = [0x736f6d6570736575n, 0x646f72616e646f6dn, 0x6c7967656e657261n, 0x7465646279746573n];
  const blocks = Math.floor(bytes.length / 8);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < blocks; i++) {
    const m = view.getBigUint64(i * 8, true);
    v[3] ^= m; sipRound(v); v[0] ^= m;
  }
  let b = BigInt(bytes.length & 0xff) << 56n;
  for (let i = blocks * 8, shift = 0n; i < bytes.length; i++, shift += 8n) b |= BigInt(bytes[i]) << shift;
  v[3] ^= b; sipRound(v); v[0] ^= b;
  v[2] ^= 0xffn; sipRound(v); sipRound(v); sipRound(v);
  return (v[0] ^ v[1] ^ v[2] ^ v[3]) & MASK64;
}

/** CPython's `hash(text)` with a zero secret, as an unsigned 64-bit value (`(size_t)hash`). */
export function pythonStrHash(text: string): bigint {
  const points = Array.from(text, (c) => c.codePointAt(0)!);
  if (points.length === 0) return 0n;
  const width = points.some((p) => p > 0xffff) ? 4 : points.some((p) => p > 0xff) ? 2 : 1;
  const bytes = new Uint8Array(points.length * width);
  points.forEach((p, i) => { for (let k = 0; k < width; k++) bytes[i * width + k] = (p >> (8 * k)) & 0xff; });
  const hash = siphash13(bytes);
  // -1 is CPython's error marker: a hash of -1 becomes -2.
  return hash === MASK64 ? MASK64 - 1n : hash;
}

interface Slot { key: string; hash: bigint }

function insertClean(table: Array<Slot | undefined>, slot: Slot): void {
  const mask = BigInt(table.length - 1);
  let perturb = slot.hash;
  let i = slot.hash & mask;
  for (;;) {
    if (!table[Number(i)]) { table[Number(i)] = slot; return; }
    if (i + 9n <= mask) {
      for (let j = 1n; j <= 9n; j++) if (!table[Number(i + j)]) { table[Number(i + j)] = slot; return; }
    }
    perturb >>= 5n;
    i = (i * 5n + 1n + perturb) & mask;
  }
}

/** The items of `list(set(items))` in CPython's order (PYTHONHASHSEED=0). */
export function pythonSetOrder(items: readonly string[]): string[] {
  let table: Array<Slot | undefined> = new Array(8);
  let used = 0;
  for (const key of items) {
    const hash = pythonStrHash(key);
    if (table.some((s) => s && s.hash === hash && s.key === key)) continue;
    insertClean(table, { key, hash });
    used++;
    // set_add_entry grows the table once fill*5 >= mask*3, to the first power of two above used*4.
    if (used * 5 >= (table.length - 1) * 3) {
      let size = 8;
      while (size <= used * 4) size *= 2;
      const old = table;
      table = new Array(size);
      for (const slot of old) if (slot) insertClean(table, slot);
    }
  }
  return table.filter((s): s is Slot => s !== undefined).map((s) => s.key);
}
