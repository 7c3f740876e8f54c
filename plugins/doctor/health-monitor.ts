/**
 * The consolidated health `GET /api/info` reports (the spec's words): the doctor's overall status and each
 * check's, taken from the last run of every check in its quick form (no outbound calls). `current()` never waits: it answers what the last run found
 * and, when that is older than `maxAgeMs`, starts one new run in the background, so monitoring can poll
 * `/api/info` as often as it likes and the checks still run at most once per `maxAgeMs`.
 */
import type { CheckStatus, HealthMonitor, HealthSummary, Services } from '../../core/services.ts';
import { runDoctor } from './run-doctor.ts';

export function createHealthMonitor(services: Services, maxAgeMs: number): HealthMonitor {
  let last: HealthSummary = { status: 'unknown', checks: {} };
  let running: Promise<void> | undefined;
  let startedAt = -Infinity;
  const refresh = (): Promise<void> => {
    startedAt = services.now();
    running ??= runDoctor(services, { quick: true })
      .then((report) => {
        const statuses: Record<string, CheckStatus> = {};
        for (const check of report.checks) statuses[check.id] = check.status;
        last = { status: report.status, checked_at: new Date(services.now()).toISOString(), checks: statuses };
      })
      .catch((error: unknown) => {
        services.logger.warn('health checks failed to run', { error: (error as Error).message });
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  return {
    current() {
      if (!running && services.now() - startedAt >= maxAgeMs) void refresh();
      return last;
    },
    refresh,
  };
}
