// Types of scripts/build-workerd.mjs, for the tests that build the worker.
export declare const ROOT: string;
export declare const OUT_DIR: string;
export declare const COMPATIBILITY_DATE: string;
export declare const KV_NAMESPACE: string;
export declare function variableNames(): string[];
export declare function sha3WasmBinary(): Uint8Array<ArrayBuffer>;
export declare function workerdConfig(): string;
export declare function buildWorker(options?: { outDir?: string; log?: (message: string) => void }): Promise<{ outfile: string; bytes: number }>;
export declare function buildWorkerd(options?: { outDir?: string; log?: (message: string) => void }): Promise<{ outfile: string; bytes: number; config: string }>;
