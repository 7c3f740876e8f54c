/**
 * Hostile: spec-to-eval cannot stall the service (issue 13 item 3). A PRD with a wide table (the 21.7 s
 * /healthz stall) converts in the offload pool under its budget; past it the answer is 422
 * `spec_too_complex` naming the table, and /healthz answers before it. Ordinary documents, pitfalls and the
 * language-model fallback give the same answers through the pool as inline. Order and outcome, no timings.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import type { Offload } from '../../core/capabilities.ts';
import { createWorkerPool } from '../../runtime/node/offload.ts';
import { testApp } from '../helpers.ts';

const ROUTE = '/api/v1/spec-to-eval';
const SMOKE = '# PRD: Smoke\n\n## Overview\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n- Accept a return within 30 days\n- Refuse a return after 90 days\n';

/** A PRD whose tasks are one wide GFM table: micromark's cost grows faster than its rows. */
function widePrd(columns: number, rows: number): string {
  const cells = (row: (column: number) => string) => `| ${Array.from({ length: columns }, (_, column) => row(column)).join(' | ')} |`;
  const body = Array.from({ length: rows }, (_, row) => cells((column) => `v${row}x${column}`)).join('\n');
  return `# PRD: Wide\n\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n\n${cells((column) => `c${column}`)}\n${cells(() => '---')}\n${body}\n`;
}

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('hostile: spec-to-eval budget', () => {
  let pool: Offload | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('answers 422 spec_too_complex naming the wide table, and /healthz answers first', async () => {
    pool = createWorkerPool({ size: 1 });
    const t = await testApp({ capabilities: { offload: pool }, env: { AEH_SPEC_TO_EVAL_BUDGET_MS: '200' } });
    const order: string[] = [];
    const converting = t.json('POST', ROUTE, { body: { markdown: widePrd(100, 400) } }).then((res) => {
      order.push('spec');
      return res;
    });
    const health = await t.request('GET', '/healthz', { key: null });
    order.push('healthz');
    expect(health.status).toBe(200);
    const res = await converting;
    expect(order).toEqual(['healthz', 'spec']);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('spec_too_complex');
    expect(res.body.detail).toMatch(/within 200 ms \(AEH_SPEC_TO_EVAL_BUDGET_MS\): a table at line 8 of about 100 columns × 402 rows/);
    expect(res.body.complexity.largestTable).toEqual({ line: 8, columns: 100, rows: 402 });
  }, 60_000);

  // The three tests below share one pool (the first test's worker is ended at its budget): a worker's start is
  // not what they check, and none leaves anything in its worker that another reads.
  let shared: Offload | undefined;
  const sharedPool = () => (shared ??= createWorkerPool({ size: 1 }));
  afterAll(async () => shared?.close());

  it('gives the same answers through the pool for ordinary documents and pitfalls', async () => {
    const pool = sharedPool();
    const pooled = await testApp({ capabilities: { offload: pool } });
    const inline = await testApp();
    for (const markdown of [SMOKE, '**Industry** Retail\n\n- no title\n']) {
      const [a, b] = await Promise.all([pooled.json('POST', ROUTE, { body: { markdown } }), inline.json('POST', ROUTE, { body: { markdown } })]);
      expect(a.status).toBe(b.status);
      const { request_id: _a, ...pooledBody } = a.body;
      const { request_id: _b, ...inlineBody } = b.body;
      expect(pooledBody).toEqual(inlineBody);
    }
    const pitfalls = await pooled.json('POST', ROUTE, { body: { markdown: '**Industry** Retail\n\n- no title\n' } });
    expect([pitfalls.status, pitfalls.body.code]).toEqual([422, 'spec_parse_failed']);
    expect(pitfalls.body.pitfalls.map((pitfall: { code: string }) => pitfall.code)).toContain('missing_h1');
  }, 60_000);

  it('runs the language-model fallback on the request thread when the worker finds no tasks', async () => {
    let calls = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', () => {
      calls++;
      const content = JSON.stringify({ tasks: [{ title: 'Earn points', input: 'How many points for 20 EUR?', expected: '"20 points"', metrics: ['task_success'] }] });
      return HttpResponse.json({ choices: [{ message: { content } }] });
    }));
    const t = await testApp({ capabilities: { offload: sharedPool() }, env: { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'prd-model' } });
    const res = await t.json('POST', ROUTE, { body: { markdown: '# PRD: Loyalty\n**Industry:** Retail\n**Use Case:** Loyalty points\n\nMembers earn a point per euro.\n' } });
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('llm');
    expect(calls).toBe(1);
  }, 60_000);

  it('enriches a structured PRD on the request thread when the worker cannot call the provider', async () => {
    let calls = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', () => {
      calls++;
      const content = JSON.stringify({ tasks: [{ index: 0, expected: 'The agent declines.', metrics: ['refusal'] }] });
      return HttpResponse.json({ choices: [{ message: { content } }] });
    }));
    const t = await testApp({ capabilities: { offload: sharedPool() }, env: { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'prd-model' } });
    const res = await t.json('POST', ROUTE, { body: { markdown: '# PRD: Returns\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n- Return a coat bought 100 days ago\n' } });
    expect(res.status).toBe(200);
    expect(calls).toBe(1);
    expect(res.body.scenarios[0].tasks[0].provenance).toEqual({ expected: 'llm', metrics: 'llm' });
  }, 60_000);
});
