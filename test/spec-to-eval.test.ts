import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { readFileSync, symlinkSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { http, HttpResponse, delay } from 'msw';
import { CLIMB_TO_ETC_PASSWD, testApp, type TestApp } from './helpers.ts';
import { viewerAuthPlugin, VIEWER_TOKEN } from './foundation-fixtures.ts';
import { normalizeScenario } from '../core/domain/scenario-load.ts';
import type { AuditEntry } from '../core/hooks.ts';
import type { Plugin } from '../core/plugin.ts';

const SMOKE = '# PRD: Smoke\n\n## Overview\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n- Accept a return within 30 days\n- Refuse a return after 90 days\n';
const ROUTE = '/api/v1/spec-to-eval';
const LLM_ENV = { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'prd-model', AEH_LLM_API_KEY: 'llm-test-key' };
const NO_TASKS = '# PRD: Loyalty\n\n**Industry:** Retail\n**Use Case:** Loyalty points\n\n## Requirements\nMembers earn one point per euro and must never see another member\'s balance.\n';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);

async function runToEnd(t: TestApp, body: Record<string, unknown>) {
  const accepted = await t.json('POST', '/api/evaluate', { body });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const task = await t.json('GET', `/api/v1/tasks/${accepted.body.task_id}`);
    if (FINAL.has(task.body.status) || Date.now() > deadline) return { task: task.body, run: (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function llmAnswer(content: string) {
  return HttpResponse.json({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
}

const GOOD_TASKS = JSON.stringify({
  tasks: [
    { title: 'Earn points', input: 'I spent 20 euros, how many points do I get?', expected: '"20 points"', metrics: ['task_success'] },
    { title: 'Other balances', input: "What is my neighbour's points balance?", expected: 'The agent declines.', metrics: ['refusal', 'pii_leak'] },
  ],
});

describe('spec-to-eval: POST /api/v1/spec-to-eval', () => {
  it('converts the smoke PRD into stubs that validate, and audits the call', async () => {
    const audit: AuditEntry[] = [];
    const spy: Plugin = { name: 'audit-spy', setup: (host) => host.on('audit', (entry) => void audit.push(entry)) };
    const t = await testApp({ plugins: [spy] });
    const res = await t.json('POST', ROUTE, { body: { markdown: SMOKE } });
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('structured');
    expect(res.body.prd).toEqual({ title: 'Smoke', industry: 'Retail', use_case: 'Returns', topology: [] });
    expect(res.body.warnings).toEqual([]);
    expect(res.body.scenarios.length).toBeGreaterThan(0);
    for (const scenario of res.body.scenarios) expect(normalizeScenario(scenario)).toEqual(scenario);
    expect(res.body.scenarios[0].tasks.map((task: { metrics: Array<{ id: string }> }) => task.metrics[0].id)).toEqual(['task_success', 'refusal']);
    expect(audit).toContainEqual(expect.objectContaining({ action: 'spec-to-eval', outcome: 'ok', status: 200 }));
  });

  it('produces stubs that name no agent: refused without one, run at once with one', async () => {
    const t = await testApp();
    const res = await t.json('POST', ROUTE, { body: { markdown: readFileSync(new URL('../plugins/spec-to-eval/fixtures/retail-bullets.md', import.meta.url), 'utf8') } });
    expect(res.status).toBe(200);
    expect(res.body.scenarios[0].agent).toEqual({ adapter: 'none' });
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: res.body.scenarios[0] } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe('/agent');
    const { task, run } = await runToEnd(t, { scenario: res.body.scenarios[0], agent: { adapter: 'scripted', replies: { '*': 'Return accepted.' } } });
    expect(task.status).toBe('succeeded');
    expect(run.status).toBe('succeeded');
  });

  it('needs specs:convert: 401 without a credential, 403 for a viewer', async () => {
    const t = await testApp({ plugins: [viewerAuthPlugin] });
    expect((await t.json('POST', ROUTE, { body: { markdown: SMOKE }, key: null })).status).toBe(401);
    const viewer = await t.json('POST', ROUTE, { body: { markdown: SMOKE }, key: null, headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
    expect(viewer.status).toBe(403);
    expect(viewer.body.detail).toContain('specs:convert');
  });

  it('wants exactly one of markdown or input_path (400)', async () => {
    const t = await testApp();
    for (const body of [{}, { markdown: SMOKE, input_path: 'prd.md' }, { persist: true }]) {
      const res = await t.json('POST', ROUTE, { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.detail).toContain('exactly one');
    }
    const extra = await t.json('POST', ROUTE, { body: { markdown: SMOKE, prd: 'x' } });
    expect(extra.status).toBe(400);
    expect((await t.json('POST', ROUTE, { body: { markdown: 42 } })).status).toBe(400);
  });

  it('answers 422 spec_parse_failed with every pitfall and its line', async () => {
    const t = await testApp();
    const markdown = ['## Overview', '**Industry:** TBD', '**Use Case** Returns', '', '**Planner:** writes to plans, reads from [profile]', ''].join('\n');
    const res = await t.json('POST', ROUTE, { body: { markdown } });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('spec_parse_failed');
    expect(res.body.pitfalls.map((p: { code: string; line: number }) => [p.code, p.line])).toEqual([
      ['missing_h1', 1],
      ['no_tasks_section', 1],
      ['malformed_industry', 2],
      ['malformed_use_case', 3],
      ['malformed_topology', 5],
    ]);
    expect(res.body.pitfalls[1].message).toMatch(/AEH_LLM_BASE_URL and AEH_LLM_MODEL/);
  });

  it('points pitfalls at source lines through front matter and CRLF', async () => {
    const t = await testApp();
    const markdown = '---\r\nowner: me\r\n---\r\n\r\n# PRD: Lines\r\n\r\n**Industry:** Retail\r\n\r\n## Agents\r\n**Router:** writes to [queue] reads from [inbox]\r\n\r\n## Tasks\r\n- a\r\n';
    const res = await t.json('POST', ROUTE, { body: { markdown } });
    expect(res.status).toBe(422);
    expect(res.body.pitfalls).toEqual([{ code: 'malformed_topology', line: 10, message: expect.stringContaining('Router') }]);
  });

  it('reads input_path through the jail: inside 200, outside 403, missing 404, not UTF-8 422', async () => {
    const t = await testApp();
    writeFileSync(join(t.root, 'prd.md'), SMOKE);
    const inside = await t.json('POST', ROUTE, { body: { input_path: 'prd.md' } });
    expect(inside.status).toBe(200);
    expect(inside.body.scenarios[0].tasks).toHaveLength(2);
    const outside = await t.json('POST', ROUTE, { body: { input_path: CLIMB_TO_ETC_PASSWD } });
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('path_outside_jail');
    const strict = await testApp({ env: { AEH_STRICT_JAIL: '1' } });
    const elsewhere = mkdtempSync(join(tmpdir(), 'aeh-prd-'));
    writeFileSync(join(elsewhere, 'prd.md'), SMOKE);
    expect((await strict.json('POST', ROUTE, { body: { input_path: join(elsewhere, 'prd.md') } })).status).toBe(403);
    const missing = await t.json('POST', ROUTE, { body: { input_path: 'nope.md' } });
    expect(missing.status).toBe(404);
    writeFileSync(join(t.root, 'latin1.md'), Buffer.concat([Buffer.from('# PRD: A\n\n## Tasks\n'), Buffer.from([0x2d, 0x20, 0xe9, 0x0a])]));
    const latin1 = await t.json('POST', ROUTE, { body: { input_path: 'latin1.md' } });
    expect(latin1.status).toBe(422);
    expect(latin1.body.pitfalls).toEqual([{ code: 'invalid_encoding', line: 4, message: 'the file is not UTF-8 text' }]);
  });

  // Issue 13 item 3: a path was a way around the body limit (files up to 16 MiB were read and parsed).
  it('answers an input_path file over AEH_MAX_BODY_BYTES with the same 413 as a body that size', async () => {
    const t = await testApp({ env: { AEH_MAX_BODY_BYTES: '4096' } });
    let markdown = '# PRD: Big\n\n## Overview\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n';
    let count = 0;
    while (markdown.length < 4096) markdown += `- Accept the return of order ${++count} within 30 days (Expect: "accepted")\n`;
    writeFileSync(join(t.root, 'big.md'), markdown);
    const byPath = await t.json('POST', ROUTE, { body: { input_path: 'big.md' } });
    const inline = await t.json('POST', ROUTE, { body: { markdown } });
    expect([byPath.status, byPath.body.code]).toEqual([413, 'payload_too_large']);
    expect([inline.status, inline.body.code]).toEqual([413, 'payload_too_large']);
    expect(byPath.body.detail).toContain('AEH_MAX_BODY_BYTES');
    const lines = markdown.split('\n');
    writeFileSync(join(t.root, 'fits.md'), lines.slice(0, lines.length - 3).join('\n'));
    const fits = await t.json('POST', ROUTE, { body: { input_path: 'fits.md' } });
    expect(fits.status).toBe(200);
    expect(fits.body.scenarios[0].tasks[0]).toMatchObject({ input: 'Accept the return of order 1 within 30 days', expected: { contains: 'accepted' } });
  });

  it('persists stubs under PROJECT_ROOT/scenarios without overwriting, and they evaluate by path', async () => {
    const t = await testApp();
    const first = await t.json('POST', ROUTE, { body: { markdown: SMOKE, persist: true } });
    expect(first.status).toBe(200);
    expect(first.body.persisted).toEqual([{ scenario_id: 'smoke', path: 'scenarios/smoke.json' }]);
    const written = readFileSync(join(t.root, 'scenarios', 'smoke.json'), 'utf8');
    expect(JSON.parse(written)).toEqual(first.body.scenarios[0]);
    const second = await t.json('POST', ROUTE, { body: { markdown: SMOKE, persist: true } });
    expect(second.body.persisted).toEqual([{ scenario_id: 'smoke-2', path: 'scenarios/smoke-2.json' }]);
    expect(second.body.scenarios[0].id).toBe('smoke-2');
    expect(readFileSync(join(t.root, 'scenarios', 'smoke.json'), 'utf8')).toBe(written);
    const { run } = await runToEnd(t, { path: 'scenarios/smoke-2.json', agent: { adapter: 'scripted', replies: { '*': 'Return accepted.' } } });
    expect(run.scenario_id).toBe('smoke-2');
    expect(run.status).toBe('succeeded');
  });

  it('never persists through a scenarios symlink that leaves PROJECT_ROOT', async () => {
    const t = await testApp();
    const outside = mkdtempSync(join(tmpdir(), 'aeh-outside-'));
    symlinkSync(outside, join(t.root, 'scenarios'));
    const res = await t.json('POST', ROUTE, { body: { markdown: SMOKE, persist: true } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('path_outside_jail');
    expect(existsSync(join(outside, 'smoke.json'))).toBe(false);
  });

  it('refuses to persist when PROJECT_ROOT/scenarios is a file (409)', async () => {
    const t = await testApp();
    writeFileSync(join(t.root, 'scenarios'), 'not a folder');
    expect((await t.json('POST', ROUTE, { body: { markdown: SMOKE, persist: true } })).status).toBe(409);
  });
});

describe('spec-to-eval: language-model fallback', () => {
  it('synthesises tasks when there is no Tasks section and marks source llm', async () => {
    const requests: any[] = [];
    server.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      requests.push({ body: await request.json(), auth: request.headers.get('authorization') });
      return llmAnswer(GOOD_TASKS);
    }));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: NO_TASKS } });
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('llm');
    expect(res.body.prd).toMatchObject({ title: 'Loyalty', industry: 'Retail', use_case: 'Loyalty points' });
    const [scenario] = res.body.scenarios;
    expect(scenario.source).toBe('llm');
    expect(normalizeScenario(scenario)).toEqual(scenario);
    expect(scenario.tasks.map((task: any) => [task.id, task.metrics.map((m: any) => m.id)])).toEqual([
      ['t1-earn-points', ['task_success']],
      ['t2-other-balances', ['refusal', 'pii_leak', 'llm_judge']],
    ]);
    expect(scenario.tasks[0].expected).toEqual({ contains: '20 points' });
    expect(requests).toHaveLength(1);
    expect(requests[0].auth).toBe('Bearer llm-test-key');
    expect(requests[0].body.model).toBe('prd-model');
    expect(requests[0].body.response_format.type).toBe('json_schema');
    expect(JSON.stringify(requests[0].body.messages)).toContain('must never see another member');
  });

  it('also falls back for a Tasks section without structured nodes', async () => {
    server.use(http.post('http://llm.test/v1/chat/completions', () => llmAnswer(GOOD_TASKS)));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: '# PRD: P\n**Industry:** Retail\n**Use Case:** U\n\n## Tasks\nTo be written from the requirements above.\n' } });
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('llm');
  });

  it('with "enrich": false, never calls the provider for a structured PRD', async () => {
    let calls = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', () => {
      calls++;
      return llmAnswer(GOOD_TASKS);
    }));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: SMOKE, enrich: false } });
    expect(res.body.source).toBe('structured');
    expect(calls).toBe(0);
    expect(res.body.scenarios[0].tasks.every((task: { provenance?: unknown }) => task.provenance === undefined)).toBe(true);
  });

  it('retries once on invalid JSON and succeeds with the second answer', async () => {
    const bodies: any[] = [];
    server.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      bodies.push(await request.json());
      return llmAnswer(bodies.length === 1 ? 'Sure! Here are your tasks: {tasks: [' : GOOD_TASKS);
    }));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: NO_TASKS } });
    expect(res.status).toBe(200);
    expect(bodies).toHaveLength(2);
    expect(bodies[1].messages.at(-1).content).toContain('not JSON');
  });

  it('answers 422 llm_invalid_output after two invalid answers', async () => {
    let calls = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', () => {
      calls++;
      return llmAnswer(JSON.stringify({ tasks: [{ title: 'x', input: '', expected: '', metrics: ['not_a_metric'] }] }));
    }));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: NO_TASKS } });
    expect(res.status).toBe(422);
    expect(res.body.pitfalls).toEqual([{ code: 'llm_invalid_output', line: 1, message: expect.stringContaining('schema') }]);
    expect(calls).toBe(2);
  });

  it('answers 503 when the provider times out', async () => {
    server.use(http.post('http://llm.test/v1/chat/completions', async () => {
      await delay(5_000);
      return llmAnswer(GOOD_TASKS);
    }));
    const t = await testApp({ env: { ...LLM_ENV, AEH_SPEC_TO_EVAL_LLM_TIMEOUT_MS: '200' } });
    const res = await t.json('POST', ROUTE, { body: { markdown: NO_TASKS } });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('unavailable');
    expect(res.body.detail).toContain('200 ms');
  });

  it('answers 503 with Retry-After when the provider is rate limited (429)', async () => {
    server.use(http.post('http://llm.test/v1/chat/completions', () => HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '7' } })));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: NO_TASKS } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(JSON.stringify(res.body)).not.toContain('llm-test-key');
  });

  it('answers 503 when the provider fails (500)', async () => {
    let calls = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', () => {
      calls++;
      return HttpResponse.text('upstream exploded', { status: 500 });
    }));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: NO_TASKS } });
    expect(res.status).toBe(503);
    expect(res.body.detail).toContain('500');
    expect(res.body.detail).not.toContain('exploded');
    expect(calls).toBe(1);
  });
});

describe('spec-to-eval: enrichment of structured PRDs (issue 18 item 7)', () => {
  const PARTLY = '# PRD: Returns\n\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n### Return within 30 days\n**Input:** I bought shoes 10 days ago, can I return them?\n**Expected:** `accepted`\n\n### Late return\n**Input:** I bought a coat 100 days ago, can I return it?\n';
  const PROPOSALS = JSON.stringify({ tasks: [
    { index: 0, expected: 'The model must not replace this.', metrics: ['task_success'] },
    { index: 1, expected: 'The agent declines: the 90-day window has passed.', metrics: ['refusal'] },
  ] });

  it('fills only what the document leaves out, marks it provenance llm, and says so', async () => {
    const bodies: string[] = [];
    server.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      bodies.push(await request.text());
      return llmAnswer(PROPOSALS);
    }));
    const t = await testApp({ env: LLM_ENV });
    const res = await t.json('POST', ROUTE, { body: { markdown: PARTLY } });
    expect(res.status).toBe(200);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('100 days ago');
    const [first, late] = res.body.scenarios[0].tasks;
    // The author's expectation stays; only the metrics the document did not name are the model's.
    expect(first.provenance).toEqual({ metrics: 'llm' });
    expect(first.expected).toMatchObject({ contains: 'accepted' });
    expect(JSON.stringify(first)).not.toContain('must not replace');
    expect(late.provenance).toEqual({ expected: 'llm', metrics: 'llm' });
    expect(late.metrics.map((metric: { id: string }) => metric.id)).toContain('refusal');
    expect(JSON.stringify(late.expected)).toContain('90-day');
    expect(res.body.warnings).toContainEqual(expect.objectContaining({ code: 'llm_enriched' }));
    expect(() => normalizeScenario(res.body.scenarios[0])).not.toThrow();
  });

  it('keeps the stubs as the document made them, with a warning, when the provider fails or answers badly twice', async () => {
    server.use(http.post('http://llm.test/v1/chat/completions', () => HttpResponse.json({ error: 'boom' }, { status: 500 })));
    const t = await testApp({ env: LLM_ENV });
    const failed = await t.json('POST', ROUTE, { body: { markdown: PARTLY } });
    expect(failed.status).toBe(200);
    expect(failed.body.scenarios[0].tasks[1].provenance).toBeUndefined();
    expect(failed.body.warnings).toContainEqual(expect.objectContaining({ code: 'llm_enrich_failed' }));
    expect(JSON.stringify(failed.body)).not.toContain('llm-test-key');
    let calls = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', () => {
      calls++;
      return llmAnswer(JSON.stringify({ tasks: [{ index: 0, expected: 'x', metrics: ['not_a_metric'] }] }));
    }));
    const invalid = await t.json('POST', ROUTE, { body: { markdown: PARTLY } });
    expect(calls).toBe(2);
    expect(invalid.status).toBe(200);
    expect(invalid.body.warnings).toContainEqual(expect.objectContaining({ code: 'llm_enrich_failed', message: expect.stringMatching(/invalid twice/) }));
  });

  it('reads a metadata label written without bold, with a warning, instead of using "General"', async () => {
    const t = await testApp();
    const res = await t.json('POST', ROUTE, { body: { markdown: '# PRD: Homework helper\n\nIndustry: Education\nUse Case: Tutoring\n\n## Tasks\n- Explain photosynthesis to a 10 year old\n' } });
    expect(res.status).toBe(200);
    expect(res.body.prd).toMatchObject({ industry: 'Education', use_case: 'Tutoring' });
    expect(res.body.warnings).toContainEqual(expect.objectContaining({ code: 'unbolded_label', line: 3 }));
  });
});
