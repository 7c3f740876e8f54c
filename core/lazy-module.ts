/**
 * CommonJS packages loaded on first use instead of at start: most of `npm start` is loading modules, and some
 * packages are needed only by work that may never come (ajv for a schema the build did not precompile, obscenity
 * for the first text `harmful_content` reads). Node, Deno and Bun require them synchronously through
 * `process.getBuiltinModule('node:module')`, so the callers stay synchronous; a bundled runtime without it
 * (workerd) imports them statically in its entry and hands them over with `provideModule`.
 */
const modules = new Map<string, unknown>();

type NodeModuleApi = { createRequire(from: string): (id: string) => unknown };

/** Supplies a package where it cannot be required synchronously (a bundle's entry imports it statically). */
export function provideModule(specifier: string, module: unknown): void {
  modules.set(specifier, module);
}

/** True once `specifier` was loaded (or provided): for tests that a start leaves it unloaded. */
export function moduleLoaded(specifier: string): boolean {
  return modules.has(specifier);
}

/** The package `specifier`, required from the module at `from` (its `import.meta.url`) on first use. */
export function requireLazily<T>(specifier: string, from: string): T {
  let module = modules.get(specifier);
  if (module === undefined) {
    const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    const nodeModule = getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
    if (!nodeModule) throw new Error(`${specifier} cannot be loaded on this runtime: it has no synchronous require and its entry did not provide it`);
    module = nodeModule.createRequire(from)(specifier);
    modules.set(specifier, module);
  }
  return module as T;
}
