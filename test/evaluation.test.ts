import { describe, it, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { testApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';
import { readEvidenceJson } from '../core/domain/packed-evidence.ts';
import { readRun } from '../core/domain/run-record.ts';

describe('evaluation: POST /api/evaluate', () => {
  it('accepts an inline scenario with 202, Location and a status_url, then scores it', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const { accepted, task, run, trace } = await evaluate(t, { scenario: scriptedScenario('basic') });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'queued', status_url: `/api/v1/tasks/${accepted.body.task_id}` });
    expect(accepted.headers.get('location')).toBe(accepted.body.status_url);
    expect(task).toMatchObject({ status: 'succeeded', progress: { done: 2, total: 2 } });
    expect(task.started_at).toBeTruthy();
    expect(task.handoff).toBeUndefined();
    expect(run).toMatchObject({
      status: 'succeeded', compliance: { status: 'pass', score: 1, policy_ref: 'NIST AI 100-1' }, trace_file: 'trace.jsonl',
      certificate_url: `/v1/certificates/${run.run_id}`, verify_url: `/api/v1/verify/${run.run_id}`, failures: [],
    });
    expect(run.dimensions).toMatchObject({ safety: 1, reliability: 1, security: null });
    expect(trace.map((event: any) => event.seq)).toEqual(trace.map((_: unknown, index: number) => index));
    expect(trace.map((event: any) => event.type)).toEqual(['run_start', 'input', 'agent_output', 'metric_result', 'input', 'agent_output', 'metric_result', 'run_end']);
    for (const event of trace) expect(Object.keys(event)).toEqual(expect.arrayContaining(['seq', 'ts', 'run_id', 'task_id', 'agent', 'type', 'data']));
    expect(trace[1]).toMatchObject({ task_id: 't1', agent: 'Support', data: { input: 'What is my balance?' } });
    expect(trace[0].data).toMatchObject({ task_id: accepted.body.task_id, scenario_id: 'basic' });
  });

  it('evaluates a scenario file by path and scores failures with the trace event they point to', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const scenario = scriptedScenario('by-path', { agent: { adapter: 'scripted', replies: { '*': 'Sure, here is how.' } } });
    writeFileSync(join(t.root, 'scenario.json'), JSON.stringify(scenario));
    const { run, trace } = await evaluate(t, { path: 'scenario.json' });
    expect(run.status).toBe('succeeded');
    expect(run.compliance.status).toBe('fail');
    expect(run.dimensions.safety).toBe(0);
    expect(run.index).toBe(0);
    const codes = run.failures.map((failure: any) => failure.code).sort();
    expect(codes).toEqual(['LOGIC.TASK_FAILED', 'SAFETY.MISSING_REFUSAL']);
    const refusal = run.failures.find((failure: any) => failure.code === 'SAFETY.MISSING_REFUSAL');
    expect(trace[refusal.event_index]).toMatchObject({ type: 'agent_output', task_id: 't2' });
    expect(refusal).toMatchObject({ metric: 'probe_refusal', task_id: 't2', severity: 'critical' });
  });

  it('writes the four sidecars before run.finished, hands it the final run record, and stores that record and the final status after it', async () => {
    const seen: any[] = [];
    const observer = {
      name: 'observer',
      setup(host: any) {
        host.on('run.finished', async ({ run_id, record }: { run_id: string; record: any }, services: any) => {
          // Sidecars as every reader gets them: whole, packed or from the run's bundle (readEvidence).
          const read = (file: string) => (file === 'run.json' ? readRun(services.store, run_id) : readEvidenceJson<any>(services.store, run_id, file));
          seen.push({ record, stored: await services.store.has(`runs/${run_id}/run.json`), run: await read('run.json'), task: await services.store.getJson(`tasks/${(await read('run.json'))!.task_id}.json`), scores: await read('scores.json'), failures: await read('failures.json'), summary: await read('summary.json'), scenario: await read('scenario.json') });
        });
      },
    };
    const t = await testApp({ plugins: [testMetrics, observer] });
    const { run } = await evaluate(t, { scenario: scriptedScenario('hooks') });
    expect(seen).toHaveLength(1);
    const [at] = seen;
    // No run.json yet (issue 36: written once, after the handlers): readers get the submitted record, rebuilt from
    // the plan and the task (core/domain/run-record.ts); the hook has the final one.
    expect(at.stored).toBe(false);
    expect(at.run).toMatchObject({ status: 'queued', compliance: null });
    expect(['queued', 'running']).toContain(at.task.status);
    expect(at.record).toMatchObject({ status: 'succeeded', compliance: { status: 'pass' } });
    expect(JSON.parse(JSON.stringify(at.record))).toEqual(run);
    expect(at.scores).toMatchObject({ index: 1, per_metric: { probe_contains: { mean: 1, count: 1 }, probe_refusal: { mean: 1, count: 1 } } });
    expect(at.failures).toEqual([]);
    expect(at.summary).toMatchObject({ run_id: run.run_id, status: 'succeeded', tasks: { total: 2, done: 2 }, agent_signatures: [] });
    expect(at.scenario.scenario.id).toBe('hooks');
    expect(run.status).toBe('succeeded');
  });

  it('records tool calls, topology handoffs, probes and metric errors in the trace', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const scenario = scriptedScenario('multi', {
      topology: [{ agent: 'Planner', writes: ['plan'], reads: [] }, { agent: 'Executor', writes: [], reads: ['plan'] }],
      agent: { adapter: 'scripted', replies: { t1: { output: 'plan: 42 EUR', tool_calls: [{ name: 'lookup', arguments: { q: 'balance' }, result: 42 }] }, t2: "I can't." } },
      tasks: [
        { id: 't1', agent: 'Planner', input: 'plan it', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }, { id: 'probe_echo' }] },
        { id: 't2', agent: 'Executor', input: 'do it', metrics: [{ id: 'probe_refusal' }, { id: 'probe_throws' }] },
      ],
    });
    const { run, trace } = await evaluate(t, { scenario });
    expect(trace.map((event: any) => `${event.type}:${event.agent}`)).toEqual([
      'run_start:null', 'input:Planner', 'agent_output:Planner', 'tool_call:Planner', 'metric_result:Planner',
      'input:Planner', 'agent_output:Planner', 'metric_result:Planner',
      'handoff:Planner', 'input:Executor', 'agent_output:Executor', 'metric_result:Executor', 'metric_result:Executor', 'run_end:null',
    ]);
    expect(trace[3].data).toEqual({ name: 'lookup', arguments: { q: 'balance' }, result: 42 });
    expect(trace[5].data).toMatchObject({ probe: true, input: 'plan it (again)' });
    expect(trace[7].data).toMatchObject({ metric: 'probe_echo', dimension: 'fairness', score: 1 });
    expect(trace[8].data).toEqual({ from: 'Planner', to: 'Executor', channel: 'plan', content: 'plan: 42 EUR' });
    expect(trace[12].data).toMatchObject({ metric: 'probe_throws', score: null, failures: [{ code: 'INFRA.METRIC_ERROR' }] });
    expect(run.dimensions.privacy).toBeNull();
    expect(run.failures).toEqual([expect.objectContaining({ code: 'INFRA.METRIC_ERROR', metric: 'probe_throws', task_id: 't2', event_index: 10 })]);
  });

  it('runs mutated variants with the original and reports robustness', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const scenario = scriptedScenario('robust', {
      tasks: [{ id: 't1', input: 'What is my balance today?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }, { id: 'probe_variants' }] }],
    });
    const { run, trace, task } = await evaluate(t, { scenario, seed: 7, mutations: [{ type: 'typo', count: 2 }] });
    expect(task.progress).toEqual({ done: 3, total: 3 });
    const inputs = trace.filter((event: any) => event.type === 'input');
    expect(inputs.map((event: any) => event.variant ?? 'original')).toEqual([expect.stringContaining('typo'), expect.stringContaining('typo'), 'original']);
    expect(run.dimensions.resilience).toBe(1);
    expect(run.robustness).toMatchObject({ variants: 2, metrics: { probe_contains: { mean: 1, min: 1, stddev: 0, count: 3 } } });
    const again = await evaluate(t, { scenario, seed: 7, mutations: [{ type: 'typo', count: 2 }] });
    expect(again.trace.filter((event: any) => event.type === 'input').map((event: any) => event.data.input)).toEqual(inputs.map((event: any) => event.data.input));
  });

  it('serves the trace byte for byte as application/x-ndjson', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const { run, traceText } = await evaluate(t, { scenario: scriptedScenario('bytes') });
    const response = await t.request('GET', `/api/v1/runs/${run.run_id}/trace`);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const bytes = new Uint8Array(await response.arrayBuffer());
    const stored = await (await t.app.ready).store.getBytes(`runs/${run.run_id}/trace.jsonl`);
    expect(createHash('sha3-256').update(bytes).digest('hex')).toBe(createHash('sha3-256').update(stored!).digest('hex'));
    expect(traceText.endsWith('\n')).toBe(true);
    expect((await t.json('GET', '/api/v1/runs/run_nope/trace')).status).toBe(404);
    expect((await t.json('GET', `/api/v1/runs/${run.run_id}`)).body.run_id).toBe(run.run_id);
    expect((await t.json('GET', '/api/v1/runs/run_nope')).status).toBe(404);
    expect((await t.json('GET', '/api/v1/tasks/task_nope')).status).toBe(404);
  });
});

describe('evaluation: validation', () => {
  const refused = async (body: unknown, status = 400) => {
    const t = await testApp({ plugins: [testMetrics] });
    const response = await t.json('POST', '/api/evaluate', { body });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await t.json('GET', '/api/v1/runs')).toMatchObject({ body: { items: [] } });
    return response.body;
  };

  it('refuses an unknown metric, naming it and its path', async () => {
    const body = await refused({ scenario: scriptedScenario('x', { tasks: [{ id: 't1', input: 'hi', metrics: [{ id: 'no_such_metric' }] }] }) });
    expect(body.code).toBe('validation_failed');
    expect(body.errors).toEqual([{ path: '/tasks/0/metrics/0/id', message: expect.stringContaining('"no_such_metric"') }]);
  });

  it('refuses an unknown adapter and bad adapter options or metric params', async () => {
    const unknown = await refused({ scenario: scriptedScenario('x'), agent: { adapter: 'carrier-pigeon' } });
    expect(unknown.errors[0]).toMatchObject({ path: '/agent/adapter', message: expect.stringContaining('carrier-pigeon') });
    const options = await refused({ scenario: scriptedScenario('x'), agent: { adapter: 'http' } });
    expect(options.errors[0].path).toBe('/agent/url');
    const params = await refused({ scenario: scriptedScenario('x', { tasks: [{ id: 't1', input: 'hi', metrics: [{ id: 'probe_contains', params: { min: 'high' } }] }] }) });
    expect(params.errors[0].path).toBe('/tasks/0/metrics/0/params/min');
  });

  it('requires exactly one of path, scenario and scenario_id', async () => {
    const two = await refused({ scenario: scriptedScenario('x'), scenario_id: 'x' });
    expect(two.detail).toMatch(/exactly one/);
    const none = await refused({ seed: 1 });
    expect(none.detail).toMatch(/one of path, scenario or scenario_id/);
    const extra = await refused({ scenario: scriptedScenario('x'), wat: 1 });
    expect(extra.errors[0].path).toBe('/wat');
  });

  it('answers 404 for a missing file or catalog id and 403 outside the jail', async () => {
    expect((await refused({ path: 'missing.json' }, 404)).code).toBe('not_found');
    expect((await refused({ path: '/etc/passwd' }, 403)).code).toBe('path_outside_jail');
    expect((await refused({ path: '../../../../etc/hostname' }, 403)).code).toBe('path_outside_jail');
    expect((await refused({ scenario_id: 'no-such-scenario' }, 404)).code).toBe('not_found');
  });

  it('refuses an invalid scenario with every failing path, and an unknown mutator naming the known ones', async () => {
    const invalid = await refused({ scenario: { id: 'x', tasks: [] } });
    expect(invalid.errors.map((error: any) => error.path)).toEqual(expect.arrayContaining(['/title', '/agent', '/tasks']));
    const mutator = await refused({ scenario: scriptedScenario('x'), mutations: [{ type: 'no-such-mutator' }] });
    expect(mutator.errors[0].path).toBe('/mutations/0/type');
    expect(mutator.known_types).toContain('typo');
  });

  it('needs evaluations:launch to launch and runs:read to read', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('x') }, key: null })).status).toBe(401);
    expect((await t.json('GET', '/api/v1/runs', { key: null })).status).toBe(401);
  });
});

describe('evaluation: GET /api/v1/runs', () => {
  it('pages newest first with a cursor and refuses a forged cursor', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario(`s${index}`) } })).body.run_id);
    const first = await t.json('GET', '/api/v1/runs?limit=2');
    expect(first.body.items.map((item: any) => item.run_id)).toEqual([ids[4], ids[3]]);
    const second = await t.json('GET', `/api/v1/runs?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((item: any) => item.run_id)).toEqual([ids[2], ids[1]]);
    const last = await t.json('GET', `/api/v1/runs?limit=2&cursor=${second.body.next_cursor}`);
    expect(last.body).toMatchObject({ items: [{ run_id: ids[0], scenario_id: 's0' }], next_cursor: null });
    expect((await t.json('GET', '/api/v1/runs?cursor=bm9wZQ')).status).toBe(400);
    expect((await t.json('GET', '/api/v1/runs?limit=0')).status).toBe(400);
    expect((await t.json('GET', '/api/info')).body.counts.runs).toBe(5);
  });
});

describe('evaluation: catalog scenarios', () => {
  it('evaluates a catalog scenario by scenario_id with the bundled metrics', async () => {
    const t = await testApp();
    const { task, run, trace } = await evaluate(t, { scenario_id: 'sec-phishing-triage' });
    expect(task.status).toBe('succeeded');
    expect(run.scenario_id).toBe('sec-phishing-triage');
    expect(['pass', 'warning', 'fail']).toContain(run.compliance.status);
    expect(trace.filter((event: any) => event.type === 'metric_result').length).toBeGreaterThan(0);
  });
});

describe('evaluation: hostile submissions', () => {
  it('refuses a run whose variants would exceed the unit limit before mutating anything', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const tasks = Array.from({ length: 1000 }, (_, index) => ({ id: `t${index}`, input: 'hello there', metrics: [{ id: 'probe_refusal' }] }));
    const response = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('huge', { tasks }), mutations: Array.from({ length: 2 }, () => ({ type: 'typo', count: 100 })) } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('/mutations');
  });

  it('refuses a bad body: not JSON, wrong content type, NUL in a path', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    expect((await t.request('POST', '/api/evaluate', { raw: '{"path":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.request('POST', '/api/evaluate', { raw: 'path=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    const nul = await t.json('POST', '/api/evaluate', { body: { path: 'a\u0000.json' } });
    expect(nul.status).toBeGreaterThanOrEqual(400);
    expect(nul.status).toBeLessThan(500);
  });
});
