/**
 * unstorage's memory driver with its keys indexed by folder. unstorage lists keys by asking the driver for every
 * key of the store and normalising and filtering each; a finished run lists its folder to count what it stored
 * (plugins/evaluation/submission/owners.ts), so a service that had kept N runs did O(N) work for each new one: a
 * quarter of the CPU of a burst of 500 evaluations, and more the longer it ran. Here `getKeys(base)` answers from
 * the index: the keys under `base` only, in the order they were first written, as the plain driver gives them.
 *
 * It also appends in place (`append`): unstorage has no append, and reading a value back to write it again whole
 * made each append cost the value's size, so a run's trace cost the square of its size (a tenth of the CPU of
 * `aeh bench agentdojo` over 949 cases, issue 36). An appended value is a view of a buffer with room to grow; the
 * bytes a reader was handed never change, as appends write only past their end.
 */
import type { Driver } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';

/** The folders a colon key is in, outermost first: `a:b:c` is in `a:` and `a:b:`. */
function foldersOf(key: string): string[] {
  const folders: string[] = [];
  for (let at = key.indexOf(':'); at !== -1; at = key.indexOf(':', at + 1)) folders.push(key.slice(0, at + 1));
  return folders;
}

/** A driver that appends in place; `bytesOf` reads a value another writer stored (a plugin's string) as the store would. */
export interface AppendingDriver extends Driver {
  append(key: string, bytes: Uint8Array, bytesOf: (value: unknown) => Uint8Array | null): void;
}

/** The memory driver, its `getKeys(base)` proportional to the keys under `base`. */
export function indexedMemoryDriver(): AppendingDriver {
  const plain = memoryDriver();
  // The buffer behind each value `append` stored (the value is its first bytes), and how much of it is written;
  // weak, so a rewritten value frees it.
  const room = new WeakMap<Uint8Array, Uint8Array>();
  const used = new WeakMap<Uint8Array, number>();
  const data = plain.getInstance!() as Map<string, unknown>;
  const byFolder = new Map<string, Set<string>>();
  const index = (key: string) => {
    if (data.has(key)) return;
    for (const folder of foldersOf(key)) {
      let keys = byFolder.get(folder);
      if (!keys) byFolder.set(folder, (keys = new Set()));
      keys.add(key);
    }
  };
  const unindex = (key: string) => {
    if (!data.has(key)) return;
    for (const folder of foldersOf(key)) {
      const keys = byFolder.get(folder);
      keys?.delete(key);
      if (keys?.size === 0) byFolder.delete(folder);
    }
  };
  return {
    ...plain,
    setItem(key: string, value: string) {
      index(key);
      data.set(key, value);
    },
    setItemRaw(key: string, value: unknown) {
      index(key);
      data.set(key, value);
    },
    removeItem(key: string) {
      unindex(key);
      data.delete(key);
    },
    append(key, bytes, bytesOf) {
      const current = data.get(key);
      const behind = current instanceof Uint8Array ? room.get(current) : undefined;
      // In place only past everything written (an older, shorter value written back must not overwrite a newer one's bytes).
      const grown = behind && used.get(behind) === (current as Uint8Array).length ? behind : undefined;
      const start = grown ? (current as Uint8Array) : (bytesOf(current) ?? new Uint8Array());
      const length = start.length + bytes.length;
      let buffer = grown;
      if (!buffer || buffer.length < length) {
        // Doubling: n appends copy O(n) bytes in all, not O(n²).
        buffer = new Uint8Array(Math.max(length * 2, 256));
        buffer.set(start);
      }
      buffer.set(bytes, start.length);
      const value = buffer.subarray(0, length);
      room.set(value, buffer);
      used.set(buffer, length);
      index(key);
      data.set(key, value);
    },
    // unstorage passes a base ending in ':' (or '' for every key) and keeps only the keys under it.
    getKeys(base: string) {
      return base ? [...(byFolder.get(base) ?? [])] : [...data.keys()];
    },
    clear() {
      byFolder.clear();
      data.clear();
    },
    dispose() {
      byFolder.clear();
      data.clear();
    },
  };
}
