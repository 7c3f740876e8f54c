/**
 * ajv (with ajv-formats), loaded on the first run-time schema compile instead of at start
 * (core/lazy-module.ts). The compiled service registers the build's precompiled validators (core/validate.ts),
 * so a start compiles nothing, and loading ajv, about a tenth of `npm start`, is spent only when a schema the
 * build did not see arrives (a user plugin's, a scenario's `expected.json_schema`).
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Options } from 'ajv';
import { moduleLoaded, requireLazily } from './lazy-module.ts';

/** The module ids a run-time compile needs (what a bundled runtime provides with `provideModule`). */
export const AJV_MODULE = 'ajv/dist/2020.js';
export const AJV_FORMATS_MODULE = 'ajv-formats';

type AddFormats = ((ajv: Ajv2020) => unknown) & { default?: (ajv: Ajv2020) => unknown };

/** True once ajv is loaded: for tests that a start leaves it unloaded. */
export function ajvLoaded(): boolean {
  return moduleLoaded(AJV_MODULE);
}

/** A new ajv instance with the formats, loading ajv on first use. */
export function createAjv(options: Options): Ajv2020 {
  const { Ajv2020: Ajv } = requireLazily<{ Ajv2020: typeof Ajv2020 }>(AJV_MODULE, import.meta.url);
  const formats = requireLazily<AddFormats>(AJV_FORMATS_MODULE, import.meta.url);
  const ajv = new Ajv(options);
  // ajv-formats ships CommonJS whose default export is the function itself.
  (formats.default ?? formats)(ajv);
  return ajv;
}
