// Types of scripts/kv-seed.mjs, for the tests that seed a KV namespace.
export interface KvEntry {
  key: string;
  bytes: Uint8Array;
}
export declare const MAX_VALUE_BYTES: number;
export declare function runEntries(dataDir: string, runIds?: string[]): KvEntry[];
export declare function putEntries(url: string, entries: KvEntry[]): Promise<void>;
export declare function bulkJson(entries: KvEntry[]): string;
