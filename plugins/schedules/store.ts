/** Schedule records in storage (`schedules/<schedule_id>.json`). */
import type { Store } from '../../core/storage.ts';
import type { StoredCreator } from '../../core/delegation.ts';
import type { Scenario } from '../../core/domain/scenario.ts';

export interface ScheduleRecord {
  schedule_id: string;
  cron: string;
  timezone: string;
  scenario_id?: string;
  /** A scenario file, read at each firing. */
  path?: string;
  /** A scenario given inline, as validated when the schedule was created. */
  scenario?: Scenario;
  /** A registered agent's name: each firing evaluates against it (`agent` of `POST /api/evaluate`). */
  agent?: string;
  created_at: string;
  /** The creator's principal id (audit, quotas, who may delete it). */
  created_by?: string;
  /** Who firings run as: the creator's principal as of creation. Never shown by the API (claims may be personal). */
  creator?: StoredCreator;
  /**
   * Set when a firing found that the creator may no longer launch evaluations, or after `MAX_REFUSED_FIRINGS`
   * refused firings in a row; a disabled schedule never fires.
   */
  disabled?: { at: string; reason: string };
  last_run?: { at: string; task_id?: string; run_id?: string; status: number; error?: string };
  /** Firings refused in a row for what the schedule asks (tick.ts); absent after one that was not. */
  refused_firings?: number;
}


export const scheduleKey = (id: string) => `schedules/${id}.json`;

/** A schedule as the API shows it: without the creator's stored claims and permissions. */
export function scheduleView(record: ScheduleRecord): Omit<ScheduleRecord, 'creator'> {
  const { creator: _creator, ...view } = record;
  return view;
}

export async function listSchedules(store: Store): Promise<ScheduleRecord[]> {
  const keys = (await store.keys('schedules')).filter((key) => key.endsWith('.json'));
  const records = await Promise.all(keys.map((key) => store.getJson<ScheduleRecord>(key)));
  return records.filter((record): record is ScheduleRecord => record !== null).sort((a, b) => a.created_at.localeCompare(b.created_at));
}
