/**
 * workerd / Cloudflare Workers entry (module worker), bundled by `scripts/build-workerd.mjs` into
 * dist/workerd/worker.js. The app is built from the bindings on the first event and kept for the isolate's life.
 * Every event stays alive (`waitUntil`) until its own work and the evaluations it started are done, even when
 * its client disconnects; `scheduled` (a cron trigger, every minute) runs the jobs due that minute.
 */
import './workerd/validators.ts';
import type { ExecutionContext } from 'hono';
import { Problem } from '../core/problems.ts';
import { consoleLogger } from '../core/capabilities.ts';
import { runDueJobs } from '../core/scheduler.ts';
import { buildWorkerdApp, type WorkerBindings, type WorkerdService } from './workerd/app.ts';

let started: { service?: WorkerdService; error?: Error } | undefined;

function serviceOf(bindings: WorkerBindings): WorkerdService {
  if (!started) {
    try {
      started = { service: buildWorkerdApp(bindings) };
    } catch (error) {
      started = { error: error as Error };
      consoleLogger().error(`could not start: ${started.error!.message}`);
    }
  }
  if (!started.service) throw new Problem('unavailable', { detail: 'the service failed to start; see its log' });
  return started.service;
}

export default {
  async fetch(request: Request, bindings: WorkerBindings, context: ExecutionContext): Promise<Response> {
    let service: WorkerdService;
    try {
      service = serviceOf(bindings);
    } catch (error) {
      return (error as Problem).toResponse();
    }
    // Registered before the response: a client that goes away must not cancel what this event started
    // (an accepted evaluation runs after the 202; see ./workerd/background.ts).
    const handling = Promise.resolve(service.app.fetch(request, bindings, context));
    context.waitUntil(handling.then(service.settled, service.settled));
    return handling;
  },
  scheduled(event: { scheduledTime: number }, bindings: WorkerBindings, context: ExecutionContext): void {
    const service = serviceOf(bindings);
    context.waitUntil(service.app.ready.then((services) => runDueJobs(services, new Date(event.scheduledTime))).then(() => service.settled()));
  },
};
