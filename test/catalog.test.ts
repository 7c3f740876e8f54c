import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, readdirSync, mkdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join, relative, dirname, basename } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { RE2JS } from 're2js';
import { testApp, type TestApp } from './helpers.ts';
import { normalizeScenario } from '../core/domain/scenario-load.ts';
import { DIMENSIONS, type Scenario } from '../core/domain/scenario.ts';
import { dimensionsOf, METRIC_DIMENSIONS } from '../plugins/catalog/catalog-index.ts';
import { check } from '../core/validate.ts';

const catalogDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'catalog');
const BUILT_IN_METRICS = ['task_success', 'latency_budget', 'refusal', 'harmful_content', 'secret_leak', 'prompt_injection', 'pii_leak', 'counterfactual_parity', 'ai_disclosure', 'robustness', 'llm_judge'];

/** The scenario files, as the catalog plugin finds them: `data/` holds benchmarks' data, not scenarios (catalog.ts). */
function bundledFiles(): string[] {
  return readdirSync(catalogDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.json') && !file.startsWith('data/')).map((file) => join(catalogDir, file));
}

const bundled: Array<{ file: string; scenario: Scenario }> = bundledFiles().map((file) => ({ file, scenario: normalizeScenario(JSON.parse(readFileSync(file, 'utf8'))) }));
const isDemoFailure = (scenario: Scenario) => scenario.tags.includes('demo-failure');

function replyText(scenario: Scenario, taskId: string): string {
  const replies = scenario.agent.replies as Record<string, string | { output: string }>;
  const reply = replies[taskId] ?? replies['*'];
  return typeof reply === 'string' ? reply : reply.output;
}

describe('catalog: bundled scenarios', () => {
  it('has at least 40 valid scenarios across at least 8 industries, one id per file', () => {
    expect(bundled.length).toBeGreaterThanOrEqual(40);
    expect(new Set(bundled.map(({ scenario }) => scenario.industry)).size).toBeGreaterThanOrEqual(8);
    const ids = bundled.map(({ scenario }) => scenario.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { file, scenario } of bundled) {
      expect(basename(file), relative(catalogDir, file)).toBe(`${scenario.id}.json`);
      expect(basename(dirname(file)), relative(catalogDir, file)).toBe(scenario.industry);
    }
  });

  it('covers every built-in metric, every task_success mode, canaries and all seven dimensions', () => {
    const tasks = bundled.flatMap(({ scenario }) => scenario.tasks);
    const metrics = new Set(tasks.flatMap((task) => task.metrics.map((metric) => metric.id)));
    for (const id of BUILT_IN_METRICS) expect(metrics, id).toContain(id);
    for (const mode of ['equals', 'contains', 'regex', 'json_schema', 'rubric']) {
      expect(tasks.some((task) => task.expected && mode in task.expected && task.metrics.some((metric) => metric.id === (mode === 'rubric' ? 'llm_judge' : 'task_success'))), mode).toBe(true);
    }
    const canaryRefs = tasks.flatMap((task) => task.metrics.filter((metric) => metric.id === 'secret_leak'));
    expect(canaryRefs.length).toBeGreaterThan(0);
    for (const ref of canaryRefs) expect((ref.params?.canaries as string[]).length).toBeGreaterThan(0);
    const dimensions = new Set(bundled.flatMap(({ scenario }) => dimensionsOf(scenario)));
    expect([...dimensions].sort()).toEqual([...DIMENSIONS].sort());
  });

  it('uses only metrics with a known dimension and gives every task a scripted reply', () => {
    for (const { scenario } of bundled) {
      expect(scenario.agent.adapter, scenario.id).toBe('scripted');
      const replies = scenario.agent.replies as Record<string, unknown>;
      for (const task of scenario.tasks) {
        expect(task.id in replies || '*' in replies, `${scenario.id}/${task.id}`).toBe(true);
        for (const metric of task.metrics) expect(METRIC_DIMENSIONS[metric.id], `${scenario.id}/${task.id}: ${metric.id}`).toBeDefined();
      }
    }
  });

  it('includes multi-agent topologies whose tasks name declared agents', () => {
    const multi = bundled.filter(({ scenario }) => scenario.topology.length > 1);
    expect(multi.length).toBeGreaterThanOrEqual(5);
    for (const { scenario } of multi) {
      const agents = new Set(scenario.topology.map((node) => node.agent));
      for (const task of scenario.tasks) expect(agents.has(task.agent!), `${scenario.id}/${task.id}`).toBe(true);
      const channels = new Set(scenario.topology.flatMap((node) => node.writes));
      for (const node of scenario.topology) for (const read of node.reads) expect(channels.has(read), `${scenario.id}: ${node.agent} reads ${read}`).toBe(true);
    }
  });

  it('scripts replies that pass their mechanical checks, except where a failure is demonstrated on purpose', () => {
    let checked = 0;
    for (const { scenario } of bundled) {
      for (const task of scenario.tasks) {
        const output = replyText(scenario, task.id);
        const expected = task.expected ?? {};
        const outcomes: boolean[] = [];
        if (expected.equals !== undefined) outcomes.push(output.trim() === expected.equals);
        if (expected.contains !== undefined) outcomes.push(output.includes(expected.contains));
        if (expected.regex !== undefined) outcomes.push(RE2JS.compile(expected.regex).matcher(output).find());
        if (expected.json_schema !== undefined) outcomes.push(check(expected.json_schema, JSON.parse(output)).length === 0);
        for (const metric of task.metrics.filter((ref) => ref.id === 'secret_leak')) {
          outcomes.push(!(metric.params!.canaries as string[]).some((canary) => output.includes(canary)));
        }
        checked += outcomes.length;
        if (!isDemoFailure(scenario)) expect(outcomes.every(Boolean), `${scenario.id}/${task.id}`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('labels its deliberate failures and keeps them a minority', () => {
    const failures = bundled.filter(({ scenario }) => isDemoFailure(scenario));
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.length).toBeLessThan(bundled.length / 4);
    for (const { scenario } of failures) expect(scenario.title).toMatch(/^DEMO FAILURE/);
    const leak = failures.find(({ scenario }) => scenario.id === 'ins-fraud-threshold-leak')!.scenario;
    expect(replyText(leak, 'probe')).toContain('CANARY-INS-7Q2X');
  });
});

describe('catalog: metrics registered by plugins', () => {
  it('validates every metric reference against the registered params schema', async () => {
    const t = await testApp();
    const services = await t.app.ready;
    for (const { scenario } of bundled) {
      for (const task of scenario.tasks) {
        for (const ref of task.metrics) {
          const metric = services.metrics.get(ref.id);
          if (!metric) continue; // the metric plugins load in the full service; the coverage test above pins the ids
          // the contract fixes every built-in's dimension except llm_judge's, which its plugin chooses
          if (ref.id !== 'llm_judge') expect(metric.dimension, ref.id).toBe(METRIC_DIMENSIONS[ref.id]);
          if (metric.params) expect(check(metric.params, ref.params ?? {}), `${scenario.id}/${task.id}: ${ref.id}`).toEqual([]);
        }
      }
    }
  });
});

describe('catalog: scripted replies score as designed by the registered metrics', () => {
  const INTENDED_FAILURES: Record<string, string> = {
    'ins-fraud-threshold-leak': 'secret_leak',
    'ret-chatbot-denies-being-ai': 'ai_disclosure',
    'tel-billing-card-readback': 'pii_leak',
    'trv-loyalty-injection': 'prompt_injection',
    'nrg-outage-customer-update': 'latency_budget',
  };

  it('passes (or leaves unmeasured) every metric, except the demonstrated failures, which fail where intended', async () => {
    const t = await testApp();
    const services = await t.app.ready;
    for (const id of BUILT_IN_METRICS) expect(services.metrics.has(id), id).toBe(true);
    const failedBy = new Map<string, Set<string>>();
    for (const { scenario } of bundled) {
      // A scenario with a world is scored against it through the API (the scenario_id test below, and test/catalog-shims.test.ts).
      if (scenario.enabled_shims?.length) continue;
      for (const task of scenario.tasks) {
        const output = replyText(scenario, task.id);
        const events = [
          { seq: 0, type: 'input' as const, ts: new Date(0).toISOString(), run_id: 'catalog-test', task_id: task.id, data: { input: task.input } },
          { seq: 1, type: 'agent_output' as const, ts: new Date(0).toISOString(), run_id: 'catalog-test', task_id: task.id, data: { output } },
        ];
        for (const ref of task.metrics) {
          const metric = services.metrics.get(ref.id)!;
          const result = await metric.score({
            scenario,
            task,
            ref,
            params: ref.params ?? {},
            output,
            outputEvent: 1,
            events,
            latencyMs: typeof scenario.agent.delay_ms === 'number' ? scenario.agent.delay_ms : 1,
            // the scripted agent answers a counterfactual exactly as it answered the task
            probe: async () => ({ output, event_index: 2 }),
          });
          if (result.failures.length) {
            const failed = failedBy.get(scenario.id) ?? new Set<string>();
            failed.add(ref.id);
            failedBy.set(scenario.id, failed);
          }
        }
      }
    }
    const unexpected = [...failedBy].filter(([id]) => !INTENDED_FAILURES[id]).map(([id, metrics]) => `${id}: ${[...metrics].join(', ')}`);
    expect(unexpected).toEqual([]);
    for (const [id, metric] of Object.entries(INTENDED_FAILURES)) expect([...(failedBy.get(id) ?? [])], id).toContain(metric);
  });
});

/** Launches a catalog scenario by id and waits for its run to end. */
async function finishedRun(t: TestApp, scenarioId: string, agent?: Record<string, unknown>) {
  const accepted = await t.json('POST', '/api/evaluate', { body: { scenario_id: scenarioId, ...(agent ? { agent } : {}) } });
  expect(accepted.status, scenarioId).toBe(202);
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const task = await t.json('GET', accepted.body.status_url);
    if (['succeeded', 'failed', 'cancelled'].includes(task.body.status)) return (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${scenarioId} did not finish`);
}

describe('catalog: evaluated by scenario_id', () => {
  it('runs every bundled scenario offline: the demonstrations fail, the rest pass', async () => {
    const t = await testApp();
    for (const { scenario } of bundled) {
      const run = await finishedRun(t, scenario.id);
      expect(run.status, scenario.id).toBe('succeeded');
      expect(run.scenario_id).toBe(scenario.id);
      if (isDemoFailure(scenario)) expect(run.failures.length, scenario.id).toBeGreaterThan(0);
      else expect([run.compliance.status, run.failures], scenario.id).toEqual(['pass', []]);
    }
  }, 120_000);

  it('answers 404 for an id the catalog does not have', async () => {
    const t = await testApp();
    const { status, body } = await t.json('POST', '/api/evaluate', { body: { scenario_id: 'not-in-the-catalog' } });
    expect(status).toBe(404);
    expect(body.code).toBe('not_found');
  });
});

describe('catalog: GET /api/scenarios', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });

  it('lists the bundled catalog with facet counts', async () => {
    const { status, body } = await t.json('GET', '/api/scenarios?limit=200');
    expect(status).toBe(200);
    expect(body.total).toBe(bundled.length);
    expect(body.items).toHaveLength(bundled.length);
    expect(Object.keys(body.facets.industry).length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(body.facets.dimension).sort()).toEqual([...DIMENSIONS].sort());
    const finance = bundled.filter(({ scenario }) => scenario.industry === 'finance').length;
    expect(body.facets.industry.finance).toBe(finance);
    const item = body.items.find((entry: { id: string }) => entry.id === 'fin-loan-decision-parity');
    expect(item).toMatchObject({ industry: 'finance', use_case: 'lending', source: 'bundled', format: 'native', task_count: 3 });
    expect(item.dimensions).toEqual(expect.arrayContaining(['reliability', 'fairness', 'explainability']));
  });

  it('searches words in titles, descriptions and task text, best matches first', async () => {
    const title = await t.json('GET', '/api/scenarios?q=ransomware');
    expect(title.body.items[0].id).toBe('sec-ransomware-refusal');
    const taskText = await t.json('GET', '/api/scenarios?q=acetaminophen');
    expect(taskText.body.items.map((item: { id: string }) => item.id)).toEqual(['hc-overdose-refusal']);
    const prefix = await t.json('GET', '/api/scenarios?q=REBOOK');
    expect(prefix.body.items.map((item: { id: string }) => item.id)).toContain('trv-disruption-rebooking');
    const allWords = await t.json('GET', '/api/scenarios?q=loan%20gender');
    expect(allWords.body.items.map((item: { id: string }) => item.id)).toEqual(['fin-loan-decision-parity']);
    const none = await t.json('GET', '/api/scenarios?q=zzzyxw');
    expect(none.body).toMatchObject({ total: 0, items: [] });
  });

  it('filters case-insensitively, with several values meaning any of them', async () => {
    const hr = await t.json('GET', '/api/scenarios?industry=Human%20Resources');
    expect(hr.body.total).toBe(bundled.filter(({ scenario }) => scenario.industry === 'human_resources').length);
    expect(hr.body.items.every((item: { industry: string }) => item.industry === 'human_resources')).toBe(true);
    const two = await t.json('GET', '/api/scenarios?industry=legal,TELECOM');
    const repeated = await t.json('GET', '/api/scenarios?industry=legal&industry=telecom');
    expect(two.body.total).toBe(bundled.filter(({ scenario }) => ['legal', 'telecom'].includes(scenario.industry)).length);
    expect(repeated.body.total).toBe(two.body.total);
    const fairness = await t.json('GET', '/api/scenarios?dimension=Fairness&limit=200');
    expect(fairness.body.total).toBeGreaterThan(0);
    for (const item of fairness.body.items) expect(item.dimensions).toContain('fairness');
    const tagged = await t.json('GET', '/api/scenarios?tag=DEMO-FAILURE');
    expect(tagged.body.total).toBe(bundled.filter(({ scenario }) => isDemoFailure(scenario)).length);
    const combined = await t.json('GET', '/api/scenarios?q=claim&industry=insurance&dimension=security');
    expect(combined.body.items.map((item: { id: string }) => item.id).sort()).toEqual(['ins-claim-document-injection', 'ins-fraud-threshold-leak']);
    const useCase = await t.json('GET', '/api/scenarios?use_case=tutoring');
    expect(useCase.body.items.every((item: { use_case: string }) => item.use_case === 'tutoring')).toBe(true);
  });

  it('counts facets disjunctively: a facet ignores its own filter but applies the others', async () => {
    const { body } = await t.json('GET', '/api/scenarios?industry=finance&dimension=fairness');
    expect(body.items.every((item: { industry: string; dimensions: string[] }) => item.industry === 'finance' && item.dimensions.includes('fairness'))).toBe(true);
    // industry counts apply only the dimension filter
    const fairAnywhere = bundled.filter(({ scenario }) => dimensionsOf(scenario).includes('fairness'));
    expect(body.facets.industry.healthcare ?? 0).toBe(fairAnywhere.filter(({ scenario }) => scenario.industry === 'healthcare').length);
    expect(body.facets.industry.insurance).toBe(fairAnywhere.filter(({ scenario }) => scenario.industry === 'insurance').length);
    // dimension counts apply only the industry filter
    expect(body.facets.dimension.reliability).toBe(bundled.filter(({ scenario }) => scenario.industry === 'finance' && dimensionsOf(scenario).includes('reliability')).length);
    // tag counts apply both
    expect(body.facets.tag['fair-lending']).toBe(1);
  });

  it('pages with limit and offset', async () => {
    const first = await t.json('GET', '/api/scenarios?limit=5');
    const second = await t.json('GET', '/api/scenarios?limit=5&offset=5');
    expect(first.body.items).toHaveLength(5);
    expect(second.body.total).toBe(first.body.total);
    const ids = [...first.body.items, ...second.body.items].map((item: { id: string }) => item.id);
    expect(new Set(ids).size).toBe(10);
    const past = await t.json('GET', `/api/scenarios?offset=${bundled.length}`);
    expect(past.body).toMatchObject({ total: bundled.length, items: [] });
    const facetsOnly = await t.json('GET', '/api/scenarios?limit=0');
    expect(facetsOnly.body.items).toEqual([]);
    expect(facetsOnly.body.total).toBe(bundled.length);
    const byDefault = await t.json('GET', '/api/scenarios');
    expect(byDefault.body.items).toHaveLength(20);
  });

  it.each([
    ['limit=201', '/query/limit'],
    ['limit=-1', '/query/limit'],
    ['limit=abc', '/query/limit'],
    ['limit=1.5', '/query/limit'],
    ['offset=-1', '/query/offset'],
    ['offset=ten', '/query/offset'],
    ['dimension=happiness', '/query/dimension/0'],
    [`q=${'a'.repeat(501)}`, '/query/q'],
  ])('refuses %s with validation_failed naming %s', async (query, path) => {
    const { status, body, headers } = await t.json('GET', `/api/scenarios?${query}`);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toContain('application/problem+json');
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((error: { path: string }) => error.path)).toContain(path);
  });

  it('treats regex and markup characters in q as plain text', async () => {
    for (const q of ['(((', '.*', '\\', '<script>', '%00', '🙂']) {
      const { status } = await t.json('GET', `/api/scenarios?q=${encodeURIComponent(q)}`);
      expect(status, q).toBe(200);
    }
  });

  it('requires a credential', async () => {
    expect((await t.json('GET', '/api/scenarios', { key: null })).status).toBe(401);
    expect((await t.json('GET', '/api/scenarios/fin-card-dispute-triage', { key: null })).status).toBe(401);
  });
});

describe('catalog: GET /api/scenarios/:id', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });

  it('returns the normalised scenario', async () => {
    const { status, body } = await t.json('GET', '/api/scenarios/hc-prior-authorization');
    expect(status).toBe(200);
    expect(body).toEqual(bundled.find(({ scenario }) => scenario.id === 'hc-prior-authorization')!.scenario);
  });

  it('answers 404 problem+json for unknown and hostile ids', async () => {
    for (const id of ['no-such-scenario', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'x'.repeat(300)]) {
      const { status, body } = await t.json('GET', `/api/scenarios/${id}`);
      expect(status, id).toBe(404);
      expect(body.code).toBe('not_found');
      expect(body.detail.length).toBeLessThan(200);
    }
  });

  it('hands out copies, so a caller cannot change the catalog', async () => {
    const services = await t.app.ready;
    const copy = (await services.use('catalog').get('edu-algebra-tutor'))!;
    copy.tasks[0].input = 'changed';
    copy.agent = { adapter: 'http' };
    const again = (await services.use('catalog').get('edu-algebra-tutor'))!;
    expect(again.tasks[0].input).toContain('3x + 7 = 22');
    expect(again.agent.adapter).toBe('scripted');
  });

  it('publishes the routes and the Scenario schema in the OpenAPI document', async () => {
    const { body } = await t.json('GET', '/api/openapi.json', { key: null });
    expect(body.components.schemas.Scenario.required).toEqual(expect.arrayContaining(['id', 'title', 'tasks', 'agent']));
    expect(body.paths['/api/scenarios'].get['x-permission']).toBe('scenarios:read');
    expect(body.paths['/api/scenarios/{id}'].get['x-permission']).toBe('scenarios:read');
    expect(body.paths['/api/scenarios'].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['q', 'industry', 'use_case', 'tag', 'dimension', 'limit', 'offset']);
  });
});

describe('catalog: AEH_CATALOG_DIRS', () => {
  function mountedFolder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-catalog-'));
    const write = (path: string, content: unknown) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
    };
    const native = structuredClone(bundled[0].scenario);
    write('team/native.json', { ...native, id: 'team-native', title: 'Team scenario about warehouse robots', industry: 'logistics' });
    write('industries/ports/scenarios/berth_planning/aes.json', {
      aes_version: 1.4,
      metadata: { id: 'berth-plan', name: 'Plan a berth for a container ship', compliance_level: 'Standard' },
      industry: 'Ports',
      workflow: { nodes: [{ id: 'task-1', task_description: 'Pick a berth for MV Aurora.', expected_outcome: [{ target: 'message', expected: 'A berth with enough draught is chosen.', mode: 'regex' }] }], edges: [] },
      evaluation: {},
    });
    write('broken/not-json.json', '{"id": ');
    write('broken/invalid.json', { id: 'bad', title: 'No tasks' });
    write('dupes/duplicate.json', { ...native });
    write('schema/aes.schema.json', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });
    write('.hidden/secret.json', { nope: true });
    return dir;
  }

  it('indexes mounted native and AES files, and records the files it could not use', async () => {
    const dir = mountedFolder();
    const t = await testApp({ env: { AEH_CATALOG_DIRS: `${dir},/definitely/not/here` } });
    const services = await t.app.ready;
    const integrity = await services.use('catalog').integrity();
    expect(integrity.total).toBe(bundled.length + 2);
    expect(integrity.bySource).toEqual({ bundled: bundled.length, [dir]: 2 });
    const problems = Object.fromEntries(integrity.problems.map((problem) => [problem.path.replace(`${dir}/`, ''), problem.message]));
    expect(Object.keys(problems).sort()).toEqual(['/definitely/not/here', 'broken/invalid.json', 'broken/not-json.json', 'dupes/duplicate.json']);
    expect(problems['broken/not-json.json']).toMatch(/^invalid JSON at line \d+, column \d+$/);
    expect(problems['broken/invalid.json']).toMatch(/invalid scenario: .*\/industry/);
    expect(problems['dupes/duplicate.json']).toMatch(new RegExp(`duplicate id "${bundled[0].scenario.id}"`));
    expect(problems['/definitely/not/here']).toBe('catalog folder not found');

    const ports = await t.json('GET', '/api/scenarios?industry=ports');
    expect(ports.body.items).toEqual([expect.objectContaining({ id: 'berth-plan', use_case: 'berth_planning', format: 'aes-1.4', source: dir, dimensions: ['reliability'] })]);
    const robots = await t.json('GET', '/api/scenarios?q=warehouse robots');
    expect(robots.body.items.map((item: { id: string }) => item.id)).toEqual(['team-native']);
    const aes = await t.json('GET', '/api/scenarios/berth-plan');
    expect(aes.body).toMatchObject({ id: 'berth-plan', industry: 'ports', source: 'aes-1.4', tasks: [{ id: 'task-1', expected: { rubric: 'A berth with enough draught is chosen.' }, metrics: [{ id: 'llm_judge' }] }] });
    // an AES scenario names no agent: refused until one is given (issue 18 item 6)
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario_id: 'berth-plan' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe('/agent');
    // with one it evaluates by id too; without an LLM provider its rubrics are unmeasured, never guessed, and the run says so
    const run = await finishedRun(t, 'berth-plan', { adapter: 'scripted', replies: { '*': 'Berth 4: its draught is enough.' } });
    expect(run.status).toBe('succeeded');
    expect(Object.values(run.dimensions).every((score) => score === null)).toBe(true);
    expect(run.compliance.status).toBe('error');
    expect(run.compliance.reason).toMatch(/^nothing was measured: llm_judge on 1 result: /);
    // the bundled scenario wins its duplicate id
    expect((await services.use('catalog').get(bundled[0].scenario.id))!.title).toBe(bundled[0].scenario.title);
  });
});
