import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { testApp, type TestApp } from './helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from './evaluation-fixtures.ts';
import { startLocalAgent, type LocalAgent } from './evaluation-local-agent.ts';

let agent: LocalAgent;
beforeAll(async () => {
  agent = await startLocalAgent({ delayMs: 150 });
});
afterAll(() => agent.close());

const TASKS = Array.from({ length: 6 }, (_, index) => ({ id: `t${index + 1}`, input: `question ${index + 1}`, expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }));

/** Two "instances" in turn on one fs data dir: the first stops mid-run, the second carries on. */
async function instance(dataDir: string, extra: Record<string, string> = {}, capabilities = {}): Promise<TestApp> {
  return testApp({ plugins: [testMetrics], env: { AEH_STORAGE: 'fs', AEH_DATA_DIR: dataDir, AEH_ALLOW_HOSTS: '127.0.0.1', ...extra }, capabilities });
}

async function startAndStopMidRun(dataDir: string) {
  const first = await instance(dataDir);
  const accepted = (await first.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('resume', { tasks: TASKS }), agent: { adapter: 'http', url: `${agent.url}/agent` } } })).body;
  for (let i = 0; i < 400; i++) {
    if ((await first.json('GET', accepted.status_url)).body.progress.done >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await first.app.close();
  const taskFile = join(dataDir, 'tasks', `${accepted.task_id}.json`);
  const task = JSON.parse(readFileSync(taskFile, 'utf8'));
  expect(task.status).toBe('running');
  expect(task.handoff).toMatch(/^ey/);
  return { accepted, taskFile, task, traceFile: join(dataDir, 'runs', accepted.run_id, 'trace.jsonl') };
}

const freshDir = () => mkdtempSync(join(tmpdir(), 'aeh-handoff-'));

// The tests run side by side (issue 36): each has its own data folder and instances, and the agent's calls are
// told apart by run id; most of their time is waiting on the agent's 150 ms answers.
describe.concurrent('evaluation: handoff protocol', () => {
  it('a new instance finishes a stopped run from its handoff token with a continuous trace', async () => {
    const dataDir = freshDir();
    const { accepted, task } = await startAndStopMidRun(dataDir);
    const doneBefore = task.progress.done;
    expect(doneBefore).toBeGreaterThanOrEqual(2);
    expect(doneBefore).toBeLessThan(6);
    const second = await instance(dataDir);
    const finished = await waitForTask(second, accepted.task_id);
    expect(finished).toMatchObject({ status: 'succeeded', progress: { done: 6, total: 6 } });
    const run = (await second.json('GET', `/api/v1/runs/${accepted.run_id}`)).body;
    // The agent refuses t2, a high-severity failure of probe_contains: the resumed run fails as an uninterrupted one would.
    expect(run.compliance).toMatchObject({ status: 'fail', decided_by: { gate: 'severity' } });
    const trace = (await (await second.request('GET', `/api/v1/runs/${accepted.run_id}/trace`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(trace.map((event) => event.seq)).toEqual(trace.map((_, index) => index));
    expect(trace.filter((event) => event.type === 'run_start')).toHaveLength(1);
    for (const { id } of TASKS) {
      expect(trace.filter((event) => event.type === 'input' && event.task_id === id)).toHaveLength(1);
      expect(trace.filter((event) => event.type === 'metric_result' && event.task_id === id)).toHaveLength(1);
    }
    // Tasks checkpointed before the stop were not asked again.
    const calls = agent.calls.filter((call) => call.body?.run_id === accepted.run_id);
    for (const { id } of TASKS.slice(0, doneBefore)) expect(calls.filter((call) => call.body.task_id === id)).toHaveLength(1);
    await second.app.close();
  });

  it('refuses a tampered token: the run fails with handoff_invalid and is not certified', async () => {
    const dataDir = freshDir();
    const { accepted, taskFile, task } = await startAndStopMidRun(dataDir);
    const [header, payload, signature] = task.handoff.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims.state.next = 5;
    writeFileSync(taskFile, JSON.stringify({ ...task, handoff: `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}` }));
    const second = await instance(dataDir);
    const finished = await waitForTask(second, accepted.task_id);
    expect(finished).toMatchObject({ status: 'failed', error: { code: 'handoff_invalid' } });
    expect((await second.json('GET', `/api/v1/runs/${accepted.run_id}`)).body).toMatchObject({ status: 'failed', compliance: { status: 'error' } });
    expect((await second.json('GET', `/v1/certificates/${accepted.run_id}`, { key: null })).status).toBe(404);
    await second.app.close();
  });

  it('refuses a token forged with another key', async () => {
    const dataDir = freshDir();
    const { accepted, taskFile, task } = await startAndStopMidRun(dataDir);
    const claims = JSON.parse(Buffer.from(task.handoff.split('.')[1], 'base64url').toString());
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'aeh-handoff+jwt' }).sign(new TextEncoder().encode('x'.repeat(32)));
    writeFileSync(taskFile, JSON.stringify({ ...task, handoff: forged }));
    const second = await instance(dataDir);
    expect(await waitForTask(second, accepted.task_id)).toMatchObject({ status: 'failed', error: { code: 'handoff_invalid', message: expect.stringContaining('not valid') } });
    await second.app.close();
  });

  it('refuses an expired token', async () => {
    const dataDir = freshDir();
    const { accepted } = await startAndStopMidRun(dataDir);
    const second = await instance(dataDir, {}, { now: () => Date.now() + 8 * 24 * 3600 * 1000 });
    expect(await waitForTask(second, accepted.task_id)).toMatchObject({ status: 'failed', error: { code: 'handoff_invalid', message: expect.stringContaining('expired') } });
    await second.app.close();
  });

  it('refuses a trace changed under the token (digest mismatch)', async () => {
    const dataDir = freshDir();
    const { accepted, traceFile } = await startAndStopMidRun(dataDir);
    writeFileSync(traceFile, readFileSync(traceFile, 'utf8').replace('question 1', 'question X'));
    const second = await instance(dataDir);
    expect(await waitForTask(second, accepted.task_id)).toMatchObject({ status: 'failed', error: { code: 'handoff_invalid', message: expect.stringContaining('trace') } });
    await second.app.close();
  });
});
