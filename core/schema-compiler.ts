/**
 * ajv (with ajv-formats), loaded on the first run-time schema compile instead of at start. The compiled service
 * registers the build's precompiled validators (core/validate.ts), so a start compiles nothing and loading ajv,
 * about a tenth of `npm start`, is spent only when a schema the build did not see arrives (a user plugin's, a
 * scenario's `expected.json_schema`). ajv is CommonJS, so Node, Deno and Bun load it synchronously through
 * `process.getBuiltinModule('node:module')`; a runtime without that (workerd) hands the modules over with
 * `provideAjv` from its entry.
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Options } from 'ajv';

/** The two modules a run-time compile needs. */
export interface AjvModules {
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: Ajv2020) => unknown;
}

let modules: AjvModules | undefined;

/** Supplies ajv where it cannot be required synchronously (a bundled runtime entry imports it statically). */
export function provideAjv(provided: AjvModules): void {
  modules = provided;
}

/** True once ajv is loaded (or provided): for tests that a start leaves it unloaded. */
export function ajvLoaded(): boolean {
  return modules !== undefined;
}

type NodeModuleApi = { createRequire(from: string): (id: string) => unknown };

function requireAjv(): AjvModules {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const nodeModule = getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
  if (!nodeModule) throw new Error('this runtime cannot compile JSON Schemas at run time: only the validators precompiled by the build are available');
  const require = nodeModule.createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  // ajv-formats ships CommonJS whose default export is the function itself.
  const formats = require('ajv-formats') as AjvModules['addFormats'] & { default?: AjvModules['addFormats'] };
  return { Ajv2020: Ajv, addFormats: formats.default ?? formats };
}

/** A new ajv instance with the formats, loading ajv on first use. */
export function createAjv(options: Options): Ajv2020 {
  modules ??= requireAjv();
  const ajv = new modules.Ajv2020(options);
  modules.addFormats(ajv);
  return ajv;
}
