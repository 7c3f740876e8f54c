/**
 * unstorage's memory driver with its keys indexed by folder. unstorage lists keys by asking the driver for every
 * key of the store and normalising and filtering each; a finished run lists its folder to count what it stored
 * (plugins/evaluation/submission/owners.ts), so a service that had kept N runs did O(N) work for each new one: a
 * quarter of the CPU of a burst of 500 evaluations, and more the longer it ran. Here `getKeys(base)` answers from
 * the index: the keys under `base` only, in the order they were first written, as the plain driver gives them.
 */
import type { Driver } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';

/** The folders a colon key is in, outermost first: `a:b:c` is in `a:` and `a:b:`. */
function foldersOf(key: string): string[] {
  const folders: string[] = [];
  for (let at = key.indexOf(':'); at !== -1; at = key.indexOf(':', at + 1)) folders.push(key.slice(0, at + 1));
  return folders;
}

/** The memory driver, its `getKeys(base)` proportional to the keys under `base`. */
export function indexedMemoryDriver(): Driver {
  const plain = memoryDriver();
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
