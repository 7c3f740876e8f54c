/**
 * Starts a worker thread on a module of this package, compiled (`.js`) or, from the sources on Node 20, which
 * runs no TypeScript, through tsx's loader registered in the worker first (the modules it imports load through
 * the same loader). `native` starts a `.ts` module as it is (Deno and Bun load TypeScript themselves).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export function startModuleWorker(url: URL, options: WorkerOptions = {}, typescript: 'tsx' | 'native' = 'tsx'): Worker {
  if (!url.pathname.endsWith('.ts') || typescript === 'native') return new Worker(url, options);
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  const code = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
