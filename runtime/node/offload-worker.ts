/**
 * The worker side of the offload pool (`./offload.ts`): loads a job's module by URL (once per worker), calls
 * its named export with the job's input and posts back the value, or the error as plain data (a `Problem`
 * keeps its code, detail and extra members, so the caller can rethrow it as it was). A job that had to load
 * modules first (its own, and those it names in `preload`) says so before and after loading them: the pool
 * starts the job's budget when they are loaded, since a cold worker's loading is not the job's work.
 */
import { parentPort } from 'node:worker_threads';
import { ownThreadStatPath } from './thread-cpu.ts';

interface JobMessage {
  id: number;
  module: string;
  name: string;
  input: unknown;
  preload?: string[];
}

const modules = new Map<string, Promise<Record<string, unknown>>>();

/** Imports a module once per worker, and awaits its `warmUp()` when it exports one (a WebAssembly engine's start). */
function loadModule(url: string): Promise<Record<string, unknown>> {
  let loaded = modules.get(url);
  if (!loaded) {
    loaded = (import(url) as Promise<Record<string, unknown>>).then(async (module) => {
      if (typeof module.warmUp === 'function') await (module.warmUp as () => Promise<unknown>)();
      return module;
    });
    modules.set(url, loaded);
  }
  return loaded;
}

function plainError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields = error as Error & { code?: unknown; detail?: unknown; extra?: unknown; errors?: unknown };
  return { name: error.name, message: error.message, code: fields.code, detail: fields.detail, extra: fields.extra, errors: fields.errors };
}

async function runJob(job: JobMessage): Promise<void> {
  try {
    const cold = [job.module, ...(job.preload ?? [])].some((url) => !modules.has(url));
    if (cold) parentPort!.postMessage({ id: job.id, loading: true });
    const [loaded] = await Promise.all([loadModule(job.module), ...(job.preload ?? []).map(loadModule)]);
    if (cold) parentPort!.postMessage({ id: job.id, loaded: true });
    const exported = loaded![job.name];
    if (typeof exported !== 'function') throw new Error(`${job.module} has no exported function "${job.name}"`);
    // A job that prepares first says when its own work starts; its budget counts from then (offload.ts).
    const clock = { started: () => parentPort!.postMessage({ id: job.id, started: true }) };
    const value = await (exported as (input: unknown, clock: { started(): void }) => unknown)(job.input, clock);
    parentPort!.postMessage({ id: job.id, ok: true, value });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, ok: false, error: plainError(error) });
  }
}

parentPort!.on('message', (job: JobMessage) => void runJob(job));
// Where this thread's CPU time can be read (thread-cpu.ts): the pool's budgets count it, not the wall clock.
parentPort!.postMessage({ ready: true, cpuStat: ownThreadStatPath() });
