/**
 * Counters of the `fs` store (the run counter `stats/runs`, each principal's stored bytes): an increment is one
 * line appended to the counter's journal instead of an atomic rewrite of its file (issue 36: a temp file, an
 * fsync and a rename, 140–420 µs of CPU, two or three a run). The fs store is used by this process alone
 * (core/domain/store-locality.ts), so the value kept in memory is the counter's value.
 *
 * Layout: the counter's own file `<key>` holds its base, either a bare number (what every earlier version wrote,
 * and what `setJson` still writes) or `{"counter":<n>,"journal":"<generation>"}`; its journal, `<key>.aeh-deltas`
 * (never a key: listings skip it), holds lines `<generation> <delta>\n`. The value is a bare number's, or the
 * counter's `n` plus the deltas of the journal's complete lines of that same generation; other lines are ignored.
 * A file of the second form whose journal is missing is not a counter, and reads as its bytes.
 *
 * The journal is read once, at a counter's first use, and the first increment rewrites it (a compaction): the
 * journal is created if missing, then the base is written atomically with the value and a new random generation,
 * then the journal is emptied; again after `COMPACT_AFTER_LINES` lines.
 *
 * Crashes: a line is one `write` of a file opened for appending, so a process that dies leaves every line whole
 * but perhaps the last, which has no newline and is ignored (its increment never answered), and the compaction at
 * the next first use drops it before anything is appended behind it. A crash between a compaction's base write
 * and the journal's emptying leaves lines of the old generation, which the new base has absorbed: they are
 * ignored, never counted twice; a crash before the base write leaves the old base, whose generation the lines
 * still carry, so none is lost. A failed append may have written part of a line: the increment fails, memory is
 * unchanged, and the next increment compacts first (a new generation), so the part never counts. As with every
 * append of this store, lines are not flushed to disk: a power loss may lose the last seconds of increments.
 * `setJson` on a counter writes a bare number, which names no generation: the journal's lines no longer count.
 * Deleting `<key>` (by the store or by hand) resets the counter the same way.
 */
import { appendFileSync, existsSync, readFileSync, truncateSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createKeyedSerialiser } from '../../core/keyed-queue.ts';
import { parseJson } from '../../core/guards/json.ts';
import { inFolder } from './fs-write.ts';

/** The journal of counter `<key>` is the file `<key>` with this suffix; it is never a key. */
export const JOURNAL_SUFFIX = '.aeh-deltas';
/** Lines past which a journal is compacted (~20 bytes each). */
export const COMPACT_AFTER_LINES = 4096;

const BASE = /^\{"counter":(-?\d+),"journal":"([0-9a-f]{12})"\}$/;
const LINE = /^([0-9a-f]{12}) (-?\d+)$/;
const OPEN_BRACE = 0x7b;
const LETTER_C = 0x63;
const BASE_MAX_BYTES = 64;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A counter as this process knows it; `generation` undefined: the next increment compacts first. */
interface Counter {
  value: number;
  generation?: string;
  lines: number;
}

/** What the counters need of the fs store. */
export interface FsCountersOptions {
  /** The file of a key. */
  pathOf(key: string): string;
  /** Reads a file's bytes; `null` when missing. */
  readFile(path: string): Promise<Uint8Array | null>;
  /** Writes a file atomically. */
  writeAtomic(path: string, bytes: Uint8Array): Promise<void>;
}

/** The value a base and its journal describe; `null` when `base` is no counter of the second form. */
export function readCounter(base: Uint8Array, journal: Uint8Array | null): { value: number; generation: string } | null {
  const match = BASE.exec(decoder.decode(base));
  if (!match || !journal) return null;
  const generation = match[2]!;
  let value = Number(match[1]);
  const lines = decoder.decode(journal).split('\n');
  lines.pop();
  for (const line of lines) {
    const delta = LINE.exec(line);
    if (delta && delta[1] === generation) value += Number(delta[2]);
  }
  return { value, generation };
}

/** A counter's value from its file and journal on disk (tests, tools); `null` when the file is missing. */
export function readCounterFile(path: string): number | null {
  if (!existsSync(path)) return null;
  const base = readFileSync(path);
  const journal = existsSync(path + JOURNAL_SUFFIX) ? readFileSync(path + JOURNAL_SUFFIX) : null;
  return readCounter(base, journal)?.value ?? Number(base.toString('utf8'));
}

const newGeneration = () => crypto.randomUUID().replaceAll('-', '').slice(0, 12);

/** Rewrites a counter's base with its value and a new generation, then empties its journal (see the header). */
async function compact(path: string, counter: Counter, writeAtomic: FsCountersOptions['writeAtomic']): Promise<void> {
  const journal = path + JOURNAL_SUFFIX;
  const generation = newGeneration();
  // The journal exists before a base names it (a base whose journal is missing is no counter).
  await inFolder(journal, async () => appendFileSync(journal, new Uint8Array()));
  await writeAtomic(path, encoder.encode(`{"counter":${counter.value},"journal":"${generation}"}`));
  truncateSync(journal, 0);
  counter.generation = generation;
  counter.lines = 0;
}

/** The counters of one fs store: `increment`, and the reads, writes and removals of keys that may be counters. */
export function createFsCounters({ pathOf, readFile, writeAtomic }: FsCountersOptions) {
  const counters = new Map<string, Counter>();
  const serialised = createKeyedSerialiser();

  /** A key's bytes, and its counter when the bytes are one of the second form. */
  async function readKey(key: string): Promise<{ bytes: Uint8Array | null; counter?: Counter }> {
    const path = pathOf(key);
    const bytes = await readFile(path);
    // Most reads are of other files: a glance at the first bytes and the size spares them the decoding.
    if (!bytes || bytes.length > BASE_MAX_BYTES || bytes[0] !== OPEN_BRACE || bytes[2] !== LETTER_C || !BASE.test(decoder.decode(bytes))) return { bytes };
    const read = readCounter(bytes, await readFile(path + JOURNAL_SUFFIX));
    return read ? { bytes, counter: { value: read.value, lines: 0 } } : { bytes };
  }

  async function load(key: string): Promise<Counter> {
    const known = counters.get(key);
    if (known) return known;
    const { bytes, counter } = await readKey(key);
    // A bare number, as every version wrote it (a corrupt one throws, unquoted, as the store's getJson does).
    const loaded = counter ?? { value: bytes ? Number(parseJson(decoder.decode(bytes))) || 0 : 0, lines: 0 };
    counters.set(key, loaded);
    return loaded;
  }

  async function increment(key: string, by: number): Promise<number> {
    const counter = await load(key);
    if (counter.generation === undefined || counter.lines >= COMPACT_AFTER_LINES) await compact(pathOf(key), counter, writeAtomic);
    try {
      appendFileSync(pathOf(key) + JOURNAL_SUFFIX, `${counter.generation} ${by}\n`);
    } catch (error) {
      counter.generation = undefined;
      throw error;
    }
    counter.lines++;
    return (counter.value += by);
  }

  return {
    increment: (key: string, by: number) => serialised(key, () => increment(key, by)),
    /** A key's bytes: a counter's value as a bare number. */
    async read(key: string): Promise<Uint8Array | null> {
      const known = counters.get(key);
      if (known) return encoder.encode(String(known.value));
      const { bytes, counter } = await readKey(key);
      if (counter && !counters.has(key)) counters.set(key, counter);
      return counter ? encoder.encode(String(counter.value)) : bytes;
    },
    /** Writes a key; a counter's becomes the bare value written, its journal no longer counting. */
    write(key: string, bytes: Uint8Array): Promise<void> {
      if (!counters.get(key)) return writeAtomic(pathOf(key), bytes);
      return serialised(key, async () => {
        await writeAtomic(pathOf(key), bytes);
        counters.delete(key);
      });
    },
    /**
     * Removes a key with `removeFile`; a counter's journal goes too (a journal left behind, of a counter never
     * used in this process, names a generation no base will name again, and is emptied at the next compaction).
     */
    remove(key: string, removeFile: () => Promise<void>): Promise<void> {
      if (!counters.has(key)) return removeFile();
      return serialised(key, async () => {
        await removeFile();
        counters.delete(key);
        await rm(pathOf(key) + JOURNAL_SUFFIX, { force: true });
      });
    },
  };
}
