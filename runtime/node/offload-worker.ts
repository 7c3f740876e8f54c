/**
 * The worker side of the offload pool (`./offload.ts`): loads a job's module by URL (once per worker), calls
 * its named export with the job's input and posts back the value, or the error as plain data (a `Problem`
 * keeps its code, detail and extra members, so the caller can rethrow it as it was).
 */
import { parentPort } from 'node:worker_threads';

interface JobMessage {
  id: number;
  module: string;
  name: string;
  input: unknown;
}

const modules = new Map<string, Promise<Record<string, unknown>>>();

function loadModule(url: string): Promise<Record<string, unknown>> {
  let loaded = modules.get(url);
  if (!loaded) {
    loaded = import(url) as Promise<Record<string, unknown>>;
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
    const exported = (await loadModule(job.module))[job.name];
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
parentPort!.postMessage({ ready: true });
