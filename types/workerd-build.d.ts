// Modules that scripts/build-workerd.mjs generates while bundling runtime/workerd.ts (esbuild plugin): workerd
// has no file system to read them from at run time, and forbids compiling validators.
declare module 'aeh:bundled-catalog' {
  import type { CatalogDocument } from '../core/capabilities.ts';
  /** Every JSON document of catalog/, by its path relative to the repository (`catalog/finance/x.json`). */
  const documents: readonly CatalogDocument[];
  export default documents;
}

declare module 'aeh:precompiled-validators' {
  import type { ValidateFunction } from 'ajv';
  /** Registers the ajv standalone validators (scripts/precompile-validators.mjs) under their schema keys. */
  export function install(register: (key: string, validate: ValidateFunction) => void): void;
}

declare module 'aeh:sha3-wasm' {
  /** hash-wasm's SHA-3 Keccak, compiled: a module of the worker (workerd compiles no WebAssembly from bytes). */
  const module: WebAssembly.Module;
  export default module;
}
