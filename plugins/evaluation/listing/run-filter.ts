/**
 * Filtered run listing (`GET /api/v1/runs?status=&scenario_id=&agent=`): walks the run index newest first in batches,
 * never scanning every run, and answers at most `limit` matches after reading at most FILTER_SCAN_BUDGET index
 * entries, with the cursor after the last entry read, so one request costs the same with 100 or 100,000 runs.
 * Summaries of finished runs are remembered per store: every field of `runSummary` is fixed once a run has
 * ended (the expiry sweep only adds fields the summary does not show), so paging through filters again does not
 * re-read them. Runs still queued or running are read every time.
 */
import { Problem } from '../../../core/problems.ts';
import { AGENT_NAME } from '../../../core/domain/agent-target.ts';
import { readRun } from '../../../core/domain/run-record.ts';
import type { Store } from '../../../core/storage.ts';
import { FINAL_STATUSES } from '../engine.ts';
import { decodeCursor, listRunIds } from './run-index.ts';
import { liveRun, runSummary } from '../views.ts';

/** The statuses a run can be filtered by. */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

/** Most index entries one filtered listing reads before answering with a cursor (docs/bench-console.md). */
export const FILTER_SCAN_BUDGET = 250;

/** Finished-run summaries remembered per store (an LRU by insertion order). */
const REMEMBERED = 20_000;

export type RunFilter = { status?: string; scenario_id?: string; agent?: string };
type Summary = ReturnType<typeof runSummary>;

const finished = new WeakMap<Store, Map<string, Summary>>();

/** The run's summary as `GET /api/v1/runs` shows it (live status folded in), or `null` when it is gone. */
export async function summaryOf(store: Store, runId: string): Promise<Summary | null> {
  let remembered = finished.get(store);
  const known = remembered?.get(runId);
  if (known) return known;
  const run = await readRun(store, runId);
  if (!run) return null;
  const summary = runSummary(await liveRun(store, run));
  if (FINAL_STATUSES.has(summary.status)) {
    if (!remembered) finished.set(store, (remembered = new Map()));
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(runId, summary);
  }
  return summary;
}

/** Reads the `status`, `scenario_id` and `agent` (a registry name) query parameters; `null` when none is set. */
export function runFilterOf(status: string | undefined, scenarioId: string | undefined, agent?: string): RunFilter | null {
  if (status && !(RUN_STATUSES as readonly string[]).includes(status)) {
    throw new Problem('validation_failed', { detail: `status must be one of ${RUN_STATUSES.join(', ')}`, errors: [{ path: '/status', message: `must be one of ${RUN_STATUSES.join(', ')}` }] });
  }
  if (scenarioId !== undefined && scenarioId.length > 200) {
    throw new Problem('validation_failed', { detail: 'scenario_id is longer than 200 characters', errors: [{ path: '/scenario_id', message: 'must be at most 200 characters' }] });
  }
  if (agent && !AGENT_NAME.test(agent)) {
    throw new Problem('validation_failed', { detail: 'agent must be the name of a registered agent', errors: [{ path: '/agent', message: `must match ${AGENT_NAME.source}` }] });
  }
  return status || scenarioId || agent ? { status: status || undefined, scenario_id: scenarioId || undefined, agent: agent || undefined } : null;
}

function matches(run: Summary, filter: RunFilter): boolean {
  return (!filter.status || run.status === filter.status) && (!filter.scenario_id || run.scenario_id === filter.scenario_id) && (!filter.agent || run.agent?.name === filter.agent);
}

/** One filtered page: `{items, next_cursor}` as `GET /api/v1/runs` answers it. */
export async function filteredRunPage(store: Store, options: { limit: number; before?: number; filter: RunFilter }): Promise<{ items: Summary[]; next_cursor: string | null }> {
  const { limit, filter } = options;
  const items: Summary[] = [];
  let before = options.before;
  let scanned = 0;
  let cursorAfterRead: string | null = null;
  while (scanned < FILTER_SCAN_BUDGET) {
    const batchStart = before;
    // A first batch sized to the page (most filters match often), then larger ones.
    const batchSize = scanned === 0 ? Math.max(50, limit * 2) : 100;
    const batch = await listRunIds(store, { limit: Math.min(batchSize, FILTER_SCAN_BUDGET - scanned), before: batchStart });
    const runs = await Promise.all(batch.ids.map((id) => summaryOf(store, id)));
    for (let position = 0; position < runs.length; position++) {
      const run = runs[position];
      if (run && matches(run, filter)) items.push(run);
      if (items.length === limit) {
        // Full mid-batch: the cursor continues right after this entry (the index below a cursor never changes).
        const rest = position + 1 < runs.length || batch.next_cursor !== null;
        const next = rest ? (await listRunIds(store, { limit: position + 1, before: batchStart })).next_cursor : null;
        return { items, next_cursor: next };
      }
    }
    scanned += runs.length;
    if (batch.next_cursor === null) return { items, next_cursor: null };
    cursorAfterRead = batch.next_cursor;
    before = decodeCursor(batch.next_cursor);
  }
  return { items, next_cursor: cursorAfterRead };
}
