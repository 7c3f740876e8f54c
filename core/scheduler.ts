/**
 * Fires the registered scheduled jobs (core/jobs.ts) with croner on runtimes that keep running (Node, Deno,
 * Bun), and on demand from a platform's cron trigger (workerd). Every firing takes a lock in the shared store
 * first, so when several instances share Redis exactly one of them runs a given firing.
 */
import { Cron } from 'croner';

import type { ScheduledJob, Services } from './services.ts';

/** How long a firing's lock is kept: long enough that no instance fires it again. */
const LOCK_TTL_SECONDS = 24 * 60 * 60;

/** Runs one firing of a job unless another instance already claimed it. Returns whether it ran here. */
export async function fireJob(services: Services, job: ScheduledJob, firingTime: Date): Promise<boolean> {
  // Epoch seconds: ISO timestamps hold ':' which storage keys refuse.
  const slot = Math.floor(firingTime.getTime() / 1000);
  const claimed = job.perInstance || await services.store.setIfAbsent(`jobs/${job.name}/${slot}`, JSON.stringify({ at: new Date(services.now()).toISOString() }), LOCK_TTL_SECONDS);
  if (!claimed) return false;
  try {
    await job.run(services);
    services.telemetry.increment(`jobs.${job.name}.runs`);
  } catch (error) {
    services.telemetry.increment(`jobs.${job.name}.errors`);
    services.logger.error(`scheduled job ${job.name} failed`, { error: (error as Error).message });
  }
  return true;
}

/** Starts every job on its cron pattern; returns a function that stops them all. */
export function startScheduler(services: Services): () => void {
  const timers = services.jobs.list().map((job) =>
    new Cron(job.cron, { protect: true, catch: true }, async (self: Cron) => {
      await fireJob(services, job, self.currentRun() ?? new Date(services.now()));
    }),
  );
  return () => timers.forEach((timer) => timer.stop());
}

/**
 * Runs the jobs due at `scheduledTime` (a platform cron trigger that fires every minute): those whose pattern
 * matches that minute.
 */
export async function runDueJobs(services: Services, scheduledTime: Date): Promise<string[]> {
  const minute = new Date(Math.floor(scheduledTime.getTime() / 60_000) * 60_000);
  const ran: string[] = [];
  for (const job of services.jobs.list()) {
    const next = new Cron(job.cron, { paused: true }).nextRun(new Date(minute.getTime() - 1000));
    if (next && Math.floor(next.getTime() / 60_000) === minute.getTime() / 60_000 && (await fireJob(services, job, minute))) ran.push(job.name);
  }
  return ran;
}
