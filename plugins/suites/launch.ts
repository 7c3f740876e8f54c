/**
 * Launching a suite: each (scenario, agent) pair becomes one `POST /api/evaluate`, dispatched in-process as the
 * suite's creator (`services.dispatchAs`), so permissions, the queue quota, rate limits and the audit trail
 * see who asked. The first pair of each agent is launched before the suite is accepted, so a spec the
 * evaluation API refuses fails the request instead of every run; the rest are launched in the background with
 * a few in flight, and a quota refusal (429) waits for `Retry-After` and tries again.
 *
 * Before each launch the launcher asks who the creator is now (issue 25 item 3): once their key is revoked or
 * expired, or they no longer hold `evaluations:launch`, the entries not launched yet are refused with the reason.
 *
 * Every launch carries `Idempotency-Key: <suite_id>.<entry index>`: sent again (a launcher resuming after a
 * crash, which may have queued a pair without saving its run id), it answers the run the pair already has
 * instead of queuing a second one. The launcher holds the suite's lease (lease.ts) and stops writing as soon as
 * the app stops or another launcher took the suite over; the entries it did not save are launched again, which
 * the key makes harmless.
 */
import type { Principal } from '../../core/auth-manager.ts';
import type { Services } from '../../core/services.ts';
import type { SuiteAgent } from '../../core/domain/suites.ts';
import type { LaunchLease } from './lease.ts';
import { suiteKeys, type SuiteEntry, type SuiteRecord } from './store.ts';
import { actingPrincipal } from '../../core/delegation.ts';

/** Launches in flight at once per suite. */
const IN_FLIGHT = 8;
/** Launches between two writes of the suite record. */
const SAVE_EVERY = 50;
/** The longest wait after a quota refusal, whatever `Retry-After` says (seconds). */
const MAX_QUOTA_WAIT_S = 30;

/** What one launch answered. */
export type LaunchOutcome = { run_id: string; task_id: string } | { error: { status: number; code: string; detail: string }; retryAfterS?: number };

/** What the app tells its launchers: at stop they write nothing more, and their leases are given up. */
export interface LaunchControl {
  stopping: boolean;
  leases: Set<LaunchLease>;
}

function bodyOf(entry: SuiteEntry, agent: SuiteAgent | undefined, record: SuiteRecord): Record<string, unknown> {
  // A file or inline scenario runs as it was read when the suite was created, whatever its file says now.
  const own = record.own_scenarios?.[entry.scenario_id];
  const base = { ...(own ? { scenario: own } : { scenario_id: entry.scenario_id }), ...(record.cache === true ? { cache: true } : {}), ...(record.verdict ? { verdict: record.verdict } : {}) };
  if (agent?.name !== undefined) return { ...base, agent: agent.name };
  if (agent?.spec !== undefined) return { ...base, agent: agent.spec };
  return base;
}

/** Sends one `POST /api/evaluate` for the entry at `index` as `principal`; the same request every time. */
export async function launchEntry(services: Services, record: SuiteRecord, index: number, principal: Principal): Promise<LaunchOutcome> {
  const entry = record.entries[index]!;
  const agent = record.agents.find((candidate) => candidate.key === entry.agent);
  const launchKey = `${record.suite_id}.${index}`;
  const response = await services.dispatchAs(new Request('http://suites.internal/api/evaluate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': launchKey, 'x-request-id': launchKey },
    body: JSON.stringify(bodyOf(entry, agent, record)),
  }), principal);
  const answer = (await response.json().catch(() => ({}))) as { run_id?: string; task_id?: string; code?: string; detail?: string; errors?: unknown };
  if (response.status === 202 && answer.run_id && answer.task_id) return { run_id: answer.run_id, task_id: answer.task_id };
  const retry = Number(response.headers.get('retry-after'));
  // 429: a quota or rate limit; 409: the same launch still in flight (a launcher that stopped moments ago).
  const waits = (response.status === 429 || response.status === 409) && Number.isFinite(retry);
  return {
    error: { status: response.status, code: String(answer.code ?? 'error'), detail: String(answer.detail ?? `answered ${response.status}`).slice(0, 500) },
    ...(waits ? { retryAfterS: Math.min(Math.max(retry, 1), MAX_QUOTA_WAIT_S) } : {}),
  };
}

/** Who the suite's launches act as now (the creator, with `evaluations:launch` only), or why they may not. */
export async function launchPrincipal(services: Services, record: SuiteRecord): Promise<{ principal: Principal } | { refused: string }> {
  const acting = await actingPrincipal(services.auth, record.creator, record.created_by, 'evaluations:launch', record.created_at);
  return 'refused' in acting && !record.creator ? { refused: `${acting.refused}, so its launch cannot resume; create it again` } : acting;
}

/** Refuses every entry not launched yet, with the reason (the suite is then launched: nothing more will be). */
export function refuseRemaining(record: SuiteRecord, reason: string): void {
  for (const entry of record.entries) {
    if (entry.run_id === null && !entry.error) entry.error = { status: 403, code: 'forbidden', detail: `not launched: ${reason}` };
  }
}

/** Records an outcome on its entry, and which suite the run belongs to. */
export async function settleEntry(services: Services, suiteId: string, entry: SuiteEntry, outcome: LaunchOutcome): Promise<void> {
  if ('error' in outcome) {
    entry.error = outcome.error;
    return;
  }
  entry.run_id = outcome.run_id;
  entry.task_id = outcome.task_id;
  await services.store.setJson(suiteKeys.ofRun(outcome.run_id), { suite_id: suiteId });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a background launch needs besides the suite: its lease, the app's stop signal and what to do at the end. */
export interface LaunchRun {
  lease: LaunchLease;
  control: LaunchControl;
  done: () => Promise<void>;
}

/**
 * Launches every entry not launched yet, then marks the suite launched, gives up its lease and calls `done`.
 * Never throws. Stops early, leaving the rest pending for the next launcher, when the app stops, the lease was
 * taken over, or the evaluation API is unavailable (503: the engine is stopping); an unexpected error is logged.
 * Each launch acts as the creator as they are now; when they may no longer launch, the rest are refused.
 */
export async function launchRemaining(services: Services, record: SuiteRecord, run: LaunchRun): Promise<void> {
  const queue = record.entries.flatMap((entry, index) => (entry.run_id === null && !entry.error ? [index] : []));
  const { lease, control } = run;
  control.leases.add(lease);
  let sinceSave = 0;
  let unavailable = false;
  let lost = false;
  let refusal: string | undefined;
  /** The creator as they are now, or `undefined` (and the reason kept) when they may no longer launch. */
  async function acting(): Promise<Principal | undefined> {
    if (refusal) return undefined;
    const current = await launchPrincipal(services, record);
    if ('refused' in current) refusal = current.refused;
    return 'principal' in current ? current.principal : undefined;
  }
  const stopped = () => control.stopping || lost;
  async function holds(): Promise<boolean> {
    if (stopped()) return false;
    lost = !(await lease.hold());
    return !lost;
  }
  async function save(): Promise<boolean> {
    if (!(await holds())) return false;
    await services.store.setJson(suiteKeys.record(record.suite_id), record);
    return true;
  }
  async function worker(): Promise<void> {
    for (let index = queue.shift(); index !== undefined && !unavailable && (await holds()); index = queue.shift()) {
      let principal = await acting();
      if (!principal) return;
      let outcome = await launchEntry(services, record, index, principal);
      while ('error' in outcome && outcome.retryAfterS !== undefined && !stopped()) {
        await sleep(outcome.retryAfterS * 1000);
        if (!(await holds()) || !(principal = await acting())) return;
        outcome = await launchEntry(services, record, index, principal);
      }
      // Stopped meanwhile: whatever was launched is found again, by its key, by whoever goes on.
      if (stopped()) return;
      if ('error' in outcome && outcome.error.status === 503) {
        unavailable = true;
        return;
      }
      await settleEntry(services, record.suite_id, record.entries[index]!, outcome);
      if (++sinceSave >= SAVE_EVERY) {
        sinceSave = 0;
        await save();
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    if (unavailable) {
      services.logger.warn('suites: the evaluation API is unavailable; launching resumes at the next start or within minutes', { suite_id: record.suite_id });
      await save();
      return;
    }
    if (refusal) {
      services.logger.warn('suites: the creator may no longer launch; the remaining runs are refused', { suite_id: record.suite_id, reason: refusal });
      refuseRemaining(record, refusal);
    }
    record.launched = true;
    if (!(await save())) return;
    await services.store.remove(suiteKeys.launching(record.suite_id));
    services.telemetry.increment('suites.launched');
    await run.done();
  } catch (error) {
    services.logger.error('suites: launching stopped; the remaining runs stay pending', { suite_id: record.suite_id, error: (error as Error).message });
    await save().catch(() => undefined);
  } finally {
    control.leases.delete(lease);
    if (!control.stopping) await lease.release().catch(() => undefined);
  }
}
