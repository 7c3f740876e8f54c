/**
 * Resuming a suite whose launching was interrupted (a crash, a deploy, a restart). A suite keeps a
 * `suites-launching/<suite_id>` marker until every entry was launched or refused; at start, and every minute
 * (the `suites.resume` job, for an instance that died while others run on), each marked suite whose lease
 * nobody holds is taken by exactly one instance (lease.ts), which launches the entries without a run id. Those
 * the stopped launcher queued without saving are answered by the evaluation API from their idempotency key
 * (`<suite_id>.<index>`), so no pair is launched twice.
 *
 * A resumed launch acts as the suite's creator, as a schedule's firing does: their principal id (quotas, audit),
 * only `evaluations:launch`, and only while they still exist and still hold it (a revoked key, a role that lost
 * the node, claims that no longer map to it); otherwise the remaining entries are refused with the reason, and
 * the suite ends as launched.
 */
import type { ScheduledJob, Services } from '../../core/services.ts';
import { acquireLease, type LaunchLease } from './lease.ts';
import { launchPrincipal, launchRemaining, refuseRemaining as refuseEntries, type LaunchControl } from './launch.ts';
import { isSuiteId, readSuite, suiteKeys, type SuiteRecord } from './store.ts';

type Settle = (services: Services, suiteId: string) => Promise<void>;

/** Ends a launch that may not resume: every entry not launched is refused with `reason`. */
async function refuseRemaining(services: Services, record: SuiteRecord, reason: string, settle: Settle): Promise<void> {
  refuseEntries(record, reason);
  record.launched = true;
  await services.store.setJson(suiteKeys.record(record.suite_id), record);
  await services.store.remove(suiteKeys.launching(record.suite_id));
  services.logger.warn('suites: an interrupted launch may not resume; its remaining runs are refused', { suite_id: record.suite_id, reason });
  await settle(services, record.suite_id);
}

/** Takes one marked suite if nobody launches it, and launches what is left (awaited). */
async function resumeSuite(services: Services, suiteId: string, control: LaunchControl, settle: Settle): Promise<void> {
  const { store } = services;
  const marker = suiteKeys.launching(suiteId);
  if (!(await readSuite(store, suiteId))) return store.remove(marker);
  const lease: LaunchLease | null = await acquireLease(services, suiteId);
  if (!lease) return; // its launcher is alive, here or on another instance
  // Read under the lease: what the last launcher saved before it stopped.
  const record = await readSuite(store, suiteId);
  const acting = record && !record.launched ? await launchPrincipal(services, record) : null;
  if (!record || !acting || control.stopping) {
    if (!control.stopping) await store.remove(marker);
    return lease.release();
  }
  if ('refused' in acting) {
    await refuseRemaining(services, record, acting.refused, settle).finally(() => lease.release());
    return;
  }
  const pending = record.entries.filter((entry) => entry.run_id === null && !entry.error).length;
  services.logger.info('suites: resuming an interrupted launch', { suite_id: suiteId, pending });
  services.telemetry.increment('suites.resumed');
  await launchRemaining(services, record, { lease, control, done: () => settle(services, suiteId) });
}

/** Resumes every suite whose launching did not finish and that no launcher holds, one after the other. */
export async function resumeSuites(services: Services, control: LaunchControl, settle: Settle): Promise<void> {
  const markers = await services.store.keys('suites-launching').catch((error: Error) => {
    services.logger.error('suites: could not list the launches to resume; the next start or minute tries again', { error: error.message });
    return [];
  });
  for (const key of markers) {
    const suiteId = key.slice(key.lastIndexOf('/') + 1);
    if (control.stopping) return;
    if (!isSuiteId(suiteId)) continue;
    await resumeSuite(services, suiteId, control, settle).catch((error) => {
      services.logger.error('suites: could not resume a launch', { suite_id: suiteId, error: (error as Error).message });
    });
  }
}

/** The job that resumes launches an instance left when it died, on whichever instance claims the minute. */
export function resumeJob(control: LaunchControl, settle: Settle): ScheduledJob {
  return { name: 'suites.resume', cron: '* * * * *', run: (services) => resumeSuites(services, control, settle) };
}
