/**
 * The schedules job: every minute, launch the evaluations whose cron pattern matches that minute (in their
 * time zone). A firing of a schedule is claimed in the store before it launches, so instances sharing
 * Redis launch it once.
 */
import { Cron } from 'croner';
import type { ScheduledJob } from '../../core/jobs.ts';
import type { Services } from '../../core/services.ts';
import { listSchedules, scheduleKey, type ScheduleRecord } from './store.ts';

/** True when `record` is due in the minute that starts at `minute`. */
export function isDue(record: ScheduleRecord, minute: Date): boolean {
  const next = new Cron(record.cron, { paused: true, timezone: record.timezone }).nextRun(new Date(minute.getTime() - 1000));
  return next !== null && Math.floor(next.getTime() / 60_000) === Math.floor(minute.getTime() / 60_000);
}

async function launch(services: Services, record: ScheduleRecord, minute: Date): Promise<void> {
  const claimed = await services.store.setIfAbsent(`schedules/${record.schedule_id}/fired/${minute.getTime()}`, 'launched', 24 * 3600);
  if (!claimed) return;
  const body = record.scenario_id ? { scenario_id: record.scenario_id } : { path: record.path };
  // The scheduler acts for the operator who owns the static key; the request never leaves the process.
  const response = await services.dispatch(new Request('http://scheduler.internal/api/evaluate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': services.config.apiKey ?? '', 'x-request-id': `schedule-${record.schedule_id}-${minute.getTime()}` },
    body: JSON.stringify(body),
  }));
  const answer = (await response.json().catch(() => ({}))) as { task_id?: string; run_id?: string; detail?: string };
  const current = await services.store.getJson<ScheduleRecord>(scheduleKey(record.schedule_id));
  if (!current) return; // deleted meanwhile
  current.last_run = { at: minute.toISOString(), task_id: answer.task_id, run_id: answer.run_id, status: response.status, ...(response.status === 202 ? {} : { error: answer.detail ?? `status ${response.status}` }) };
  await services.store.setJson(scheduleKey(record.schedule_id), current);
  services.telemetry.increment(response.status === 202 ? 'schedules.launched' : 'schedules.failed');
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
