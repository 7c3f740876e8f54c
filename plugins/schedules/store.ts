/** Schedule records in storage (`schedules/<schedule_id>.json`). */
import type { Store } from '../../core/storage.ts';

export interface ScheduleRecord {
  schedule_id: string;
  cron: string;
  timezone: string;
  scenario_id?: string;
  path?: string;
  created_at: string;
  created_by?: string;
  last_run?: { at: string; task_id?: string; run_id?: string; status: number; error?: string };
}

export const scheduleKey = (id: string) => `schedules/${id}.json`;

export async function listSchedules(store: Store): Promise<ScheduleRecord[]> {
  const keys = (await store.keys('schedules')).filter((key) => key.endsWith('.json'));
  const records = await Promise.all(keys.map((key) => store.getJson<ScheduleRecord>(key)));
  return records.filter((record): record is ScheduleRecord => record !== null).sort((a, b) => a.created_at.localeCompare(b.created_at));
}
