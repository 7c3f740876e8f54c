/**
 * The schedules job: every minute, launch the evaluations whose cron pattern matches that minute (in their
 * time zone). A firing of a schedule is claimed in the store before it launches, so instances sharing
 * Redis launch it once. A firing acts as the schedule's creator (issue 13 item 8): their principal id, only the
 * `evaluations:launch` permission they held at creation, and only while they still exist and still hold it, asked
 * at each firing (issue 25 item 3: a revoked or expired key, a role that lost the node, identity-provider claims
 * that no longer map to it); otherwise the schedule is disabled with the reason and the audit log says so.
 *
 * A schedule whose firings are refused for what it asks (400, 404, 409, 413, 422: a scenario that cannot run
 * here) `MAX_REFUSED_FIRINGS` times in a row is disabled too: each refused firing validates the scenario again
 * (its world built in the pool under the shim budget), and a refused submission holds no quota, so 50 such
 * schedules firing every minute were pool work nobody was charged for, for good. Quota and availability
 * refusals (429, 503) are not counted: those firings may pass next time.
 */
import { Cron } from 'croner';
import type { ScheduledJob } from '../../core/services.ts';
import type { Services } from '../../core/services.ts';
import type { Principal } from '../../core/auth-manager.ts';
import { actingPrincipal } from '../../core/delegation.ts';
import { listSchedules, scheduleKey, type ScheduleRecord } from './store.ts';

/** True when `record` is due in the minute that starts at `minute`. */
/** Refused firings in a row after which a schedule is disabled. */
export const MAX_REFUSED_FIRINGS = 3;
/** Statuses that refuse what a schedule asks, not the moment it asks. */
const REFUSALS = new Set([400, 404, 409, 413, 422]);

export function isDue(record: ScheduleRecord, minute: Date): boolean {
  if (record.disabled) return false;
  const next = new Cron(record.cron, { paused: true, timezone: record.timezone }).nextRun(new Date(minute.getTime() - 1000));
  return next !== null && Math.floor(next.getTime() / 60_000) === Math.floor(minute.getTime() / 60_000);
}

/** Who a firing runs as (the creator, with `evaluations:launch` only), or why it may not run any more. */
export async function firingPrincipal(services: Services, record: ScheduleRecord): Promise<{ principal: Principal } | { refused: string }> {
  const acting = await actingPrincipal(services.auth, record.creator, record.created_by, 'evaluations:launch', record.created_at);
  if ('refused' in acting && !record.creator && record.created_by !== 'static-key') return { refused: `${acting.refused}; delete it and create it again` };
  return acting;
}

async function disable(services: Services, record: ScheduleRecord, reason: string, minute: Date, status = 403): Promise<void> {
  const current = await services.store.getJson<ScheduleRecord>(scheduleKey(record.schedule_id));
  if (!current || current.disabled) return;
  const at = new Date(services.now()).toISOString();
  current.disabled = { at, reason };
  await services.store.setJson(scheduleKey(record.schedule_id), current);
  services.telemetry.increment('schedules.disabled');
  services.logger.warn('schedule disabled', { schedule_id: record.schedule_id, reason });
  await services.hooks.emit('audit', {
    at, request_id: `schedule-${record.schedule_id}-${minute.getTime()}`, principal: record.creator?.id ?? record.created_by,
    method: 'POST', path: '/api/evaluate', action: 'schedule.disabled', outcome: 'refused', status, detail: reason,
  });
}

async function launch(services: Services, record: ScheduleRecord, minute: Date): Promise<void> {
  const claimed = await services.store.setIfAbsent(`schedules/${record.schedule_id}/fired/${minute.getTime()}`, 'launched', 24 * 3600);
  if (!claimed) return;
  const acting = await firingPrincipal(services, record);
  if ('refused' in acting) return disable(services, record, acting.refused, minute);
  const body = { ...(record.scenario_id ? { scenario_id: record.scenario_id } : record.scenario ? { scenario: record.scenario } : { path: record.path }), ...(record.agent ? { agent: record.agent } : {}) };
  const response = await services.dispatchAs(new Request('http://scheduler.internal/api/evaluate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': `schedule-${record.schedule_id}-${minute.getTime()}` },
    body: JSON.stringify(body),
  }), acting.principal);
  const answer = (await response.json().catch(() => ({}))) as { task_id?: string; run_id?: string; detail?: string };
  const current = await services.store.getJson<ScheduleRecord>(scheduleKey(record.schedule_id));
  if (!current) return; // deleted meanwhile
  current.last_run = { at: minute.toISOString(), task_id: answer.task_id, run_id: answer.run_id, status: response.status, ...(response.status === 202 ? {} : { error: answer.detail ?? `status ${response.status}` }) };
  const refused = REFUSALS.has(response.status) ? (current.refused_firings ?? 0) + 1 : 0;
  if (refused) current.refused_firings = refused;
  else delete current.refused_firings;
  await services.store.setJson(scheduleKey(record.schedule_id), current);
  services.telemetry.increment(response.status === 202 ? 'schedules.launched' : 'schedules.failed');
  if (refused >= MAX_REFUSED_FIRINGS) {
    await disable(services, current, `its last ${refused} firings were refused (${response.status}: ${String(answer.detail ?? '').slice(0, 200)}); fix the scenario and create the schedule again`, minute, response.status);
  }
}

export const schedulesTick: ScheduledJob = {
  name: 'schedules.tick',
  cron: '* * * * *',
  async run(services) {
    const minute = new Date(Math.floor(services.now() / 60_000) * 60_000);
    for (const record of await listSchedules(services.store)) {
      if (isDue(record, minute)) await launch(services, record, minute);
    }
  },
};
