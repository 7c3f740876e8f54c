/**
 * Registers the build's precompiled JSON Schema validators (`dist/validators.generated.js`, written by
 * `scripts/precompile-validators.mjs`) with `core/validate.ts`. Present when running the compiled service
 * (`npm start`); from the sources (tsx, tests) there is none and validators compile at run time.
 * Must run before the plugins are imported: metric definitions resolve their validators at import.
 */
import { precompiledCount, registerPrecompiled } from '../../core/validate.ts';

/**
 * Installs the generated validators when they exist; returns how many are registered. `file`: the catalog
 * prefetch worker installs only the catalog loader's (`validators.catalog.generated.js`).
 */
export async function installPrecompiledValidators(file = 'validators.generated.js'): Promise<number> {
  const generated = new URL(`../../${file}`, import.meta.url);
  let module: { install(register: typeof registerPrecompiled): void };
  try {
    module = await import(generated.href);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(file)) return 0;
    throw error;
  }
  module.install(registerPrecompiled);
  return precompiledCount();
}
