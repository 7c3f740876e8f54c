/**
 * The runs list behind the console: `GET /api/v1/runs` filters (status, scenario_id) paged through the run index
 * with bounded work per request, and the console's runs fragment that uses them.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, type TestApp } from './helpers.ts';
import { keys, type RunRecord } from '../core/domain/runs.ts';
import type { Services } from '../core/services.ts';
import { createRunIndexer } from '../plugins/evaluation/listing/run-index.ts';

/** Stores finished runs the way the engine leaves them (run.json + the run index), oldest first. */
async function seedRuns(services: Services, runs: Array<Pick<RunRecord, 'scenario_id' | 'status'>>, prefix = 'run_seed_'): Promise<string[]> {
  const indexer = createRunIndexer(services.store);
  const ids: string[] = [];
  for (const [position, { scenario_id, status }] of runs.entries()) {
    const runId = `${prefix}${String(position).padStart(5, '0')}`;
    const compliance = status === 'succeeded' ? { status: 'pass' as const, score: 0.9, policy_ref: 'NIST' } : status === 'failed' ? { status: 'error' as const, score: 0, policy_ref: 'NIST' } : null;
    const record: RunRecord = {
      run_id: runId, task_id: `task_${runId}`, scenario_id, scenario_title: `Title of ${scenario_id}`, status,
      created_at: new Date(Date.UTC(2026, 0, 1) + position * 1000).toISOString(), started_at: null, finished_at: null,
      dimensions: null, index: compliance?.score ?? null, compliance, failures: [], trace_file: 'trace.jsonl',
      certificate_url: `/v1/certificates/${runId}`, verify_url: `/api/v1/verify/${runId}`,
    };
    await services.store.setJson(keys.run(runId), record);
    await indexer.add(runId);
    ids.push(runId);
  }
  return ids;
}

describe('GET /api/v1/runs filters', () => {
  let t: TestApp;
  let ids: string[];

  beforeAll(async () => {
    t = await testApp();
    // 1,200 runs: every 7th of scenario "rare", every 3rd failed; spans two index pages (1,000 per page).
    const runs = Array.from({ length: 1200 }, (_, position) => ({
      scenario_id: position % 7 === 0 ? 'rare' : 'common',
      status: (position % 3 === 0 ? 'failed' : 'succeeded') as RunRecord['status'],
    }));
    ids = await seedRuns(await t.app.ready, runs);
  }, 60_000);

  async function collect(query: string, limit = 50) {
    const seen: Array<{ run_id: string; status: string; scenario_id: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await t.json('GET', `/api/v1/runs?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.items);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages < 200);
    return { seen, pages };
  }

  it('pages through every matching run exactly once, newest first, across index pages', async () => {
    const expected = ids.filter((_, position) => position % 7 === 0 && position % 3 === 0).reverse();
    const { seen } = await collect('scenario_id=rare&status=failed', 10);
    expect(seen.map((run) => run.run_id)).toEqual(expected);
    expect(seen.every((run) => run.scenario_id === 'rare' && run.status === 'failed')).toBe(true);
  });

  it('filters by status alone and by scenario alone', async () => {
    const failed = await collect('status=failed', 100);
    expect(failed.seen.length).toBe(400);
    const rare = await collect('scenario_id=rare', 100);
    expect(rare.seen.length).toBe(Math.ceil(1200 / 7));
    expect(new Set(rare.seen.map((run) => run.run_id)).size).toBe(rare.seen.length);
  });

  it('bounds the work of one request: a rare match answers a short page with a cursor rather than scanning on', async () => {
    const first = await t.json('GET', '/api/v1/runs?limit=100&scenario_id=rare&status=failed');
    // 250 entries read at most: 12 matches among the newest 250, and a cursor to continue.
    expect(first.body.items).toHaveLength(12);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const none = await collect('scenario_id=nothing-matches', 100);
    expect(none.seen).toEqual([]);
    expect(none.pages).toBe(5); // 1,200 entries at 250 per request
  });

  it('sees a run move from running to succeeded (only finished runs are remembered)', async () => {
    const services = await t.app.ready;
    const [runId] = await seedRuns(services, [{ scenario_id: 'moving', status: 'running' }], 'run_moving_');
    const task = { task_id: `task_${runId}`, run_id: runId!, status: 'running', progress: { done: 0, total: 1 }, created_at: '2026-01-01T00:00:00.000Z', started_at: '2026-01-01T00:00:00.000Z', finished_at: null };
    await services.store.setJson(keys.task(task.task_id), task);
    const running = await t.json('GET', '/api/v1/runs?scenario_id=moving&status=running');
    expect(running.body.items.map((run: { run_id: string }) => run.run_id)).toEqual([runId]);
    const record = await services.store.getJson<RunRecord>(keys.run(runId!));
    await services.store.setJson(keys.task(task.task_id), { ...task, status: 'succeeded', finished_at: '2026-01-01T00:00:01.000Z' });
    await services.store.setJson(keys.run(runId!), { ...record, status: 'succeeded' });
    expect((await t.json('GET', '/api/v1/runs?scenario_id=moving&status=running')).body.items).toEqual([]);
    expect((await t.json('GET', '/api/v1/runs?scenario_id=moving&status=succeeded')).body.items).toHaveLength(1);
  });

  it('refuses unknown statuses and oversized scenario ids', async () => {
    const bad = await t.json('GET', '/api/v1/runs?status=done');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/status');
    expect((await t.json('GET', `/api/v1/runs?scenario_id=${'x'.repeat(201)}`)).status).toBe(400);
    expect((await t.json('GET', '/api/v1/runs?status=failed&cursor=bm9wZQ')).status).toBe(400);
  });

  it('the console runs fragment shows the filtered page and links to the next one with the filters kept', async () => {
    const res = await t.request('GET', '/console/fragments/runs?status=failed&scenario_id=rare');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Newest first, status failed, scenario rare');
    const rows = html.match(/<tr><td><a href="\/runs\/run_seed_\d+">/g) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    expect(html).not.toContain('class="badge succeeded"');
    expect(html).toMatch(/<a href="\/\?status=failed&amp;scenario_id=rare&amp;cursor=[^"]+">Older runs/);
  });
});
