/**
 * The stateless-engine proof (issue 4 item 9): a real server (child process, fs storage) is killed with
 * SIGKILL in the middle of a multi-task run against a slow local HTTP agent; a new server on the same data dir
 * finishes the run from its handoff token, with a continuous trace and no task lost or run twice.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_KEY } from './helpers.ts';
import { scriptedScenario } from './evaluation-fixtures.ts';
import { startLocalAgent } from './evaluation-local-agent.ts';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

function serve(root: string, agentHost: string): Promise<{ child: ChildProcess; url: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AEH_|DASHBOARD_|OIDC_|PORT$|HOST$|PROJECT_ROOT$|NODE_OPTIONS$|VITEST)/.test(name)));
  // The compiled service, as npm start runs it (dist/ is built once for the suite by test/global-setup.ts):
  // from the sources through tsx each of the four starts took seconds more.
  const child = spawn(process.execPath, ['dist/runtime/node.js'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, PROJECT_ROOT: root, PORT: '0', DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'fs', AEH_ALLOW_HOSTS: agentHost, AEH_PLUGINS: join(repoRoot, 'test/fixtures/evaluation-metrics.ts') },
  });
  children.push(child);
  return new Promise((done, fail) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (match) done({ child, url: match[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`server exited with ${code}: ${output.slice(-2000)}`)));
  });
}

async function api(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, { method, headers: { 'x-api-key': TEST_KEY, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: response.status, text: await response.text() };
}

/** Waits until the task has done `units` units, then kills the server with SIGKILL. */
async function killAfter(server: { child: ChildProcess; url: string }, statusUrl: string, units: number): Promise<void> {
  let progress = 0;
  for (let i = 0; i < 300 && progress < units; i++) {
    progress = JSON.parse((await api(server.url, 'GET', statusUrl)).text).progress.done;
    await new Promise((done) => setTimeout(done, 20));
  }
  expect(progress).toBeGreaterThanOrEqual(units);
  const exited = new Promise((done) => server.child.once('exit', done));
  process.kill(-server.child.pid!, 'SIGKILL');
  await exited;
}

/** Polls the task on `url` until it ends; returns it. */
async function finalTask(url: string, statusUrl: string): Promise<any> {
  let task: any;
  for (let i = 0; i < 500; i++) {
    task = JSON.parse((await api(url, 'GET', statusUrl)).text);
    if (['succeeded', 'failed', 'cancelled'].includes(task.status)) break;
    await new Promise((done) => setTimeout(done, 20));
  }
  return task;
}

/** The run's trace, parsed. */
async function traceOf(url: string, runId: string): Promise<any[]> {
  return (await api(url, 'GET', `/api/v1/runs/${runId}/trace`)).text.trim().split('\n').map((line) => JSON.parse(line));
}

// The two tests run side by side: each has its own agent, data folder and servers, and most of their time is
// waiting (the agent answers after 300 ms, servers start and are killed), not CPU (issue 36).
describe.concurrent('evaluation: kill -9 mid-run', () => {
  it('a new server finishes the run from its handoff token; nothing lost or run twice', async () => {
    const agent = await startLocalAgent({ delayMs: 300 });
    const root = mkdtempSync(join(tmpdir(), 'aeh-kill-'));
    try {
      const tasks = Array.from({ length: 8 }, (_, index) => ({ id: `k${index + 1}`, input: `question ${index + 1}`, expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }));
      const first = await serve(root, '127.0.0.1');
      const accepted = JSON.parse((await api(first.url, 'POST', '/api/evaluate', { scenario: scriptedScenario('kill', { tasks }), agent: { adapter: 'http', url: `${agent.url}/agent` } })).text);
      await killAfter(first, accepted.status_url, 3);
      const callsAtKill = agent.calls.filter((call) => call.body?.run_id === accepted.run_id).map((call) => call.body.task_id);
      expect(callsAtKill.length).toBeLessThan(8);

      const second = await serve(root, '127.0.0.1');
      expect(await finalTask(second.url, accepted.status_url)).toMatchObject({ status: 'succeeded', progress: { done: 8, total: 8 } });
      const run = JSON.parse((await api(second.url, 'GET', `/api/v1/runs/${accepted.run_id}`)).text);
      expect(run).toMatchObject({ status: 'succeeded', compliance: { status: 'pass' }, failures: [] });

      const trace = await traceOf(second.url, accepted.run_id);
      expect(trace.map((event) => event.seq)).toEqual(trace.map((_, index) => index));
      expect(trace.filter((event) => event.type === 'run_start')).toHaveLength(1);
      expect(trace.filter((event) => event.type === 'run_end')).toHaveLength(1);
      for (const { id } of tasks) {
        expect(trace.filter((event) => event.type === 'input' && event.task_id === id)).toHaveLength(1);
        expect(trace.filter((event) => event.type === 'agent_output' && event.task_id === id)).toHaveLength(1);
        expect(trace.filter((event) => event.type === 'metric_result' && event.task_id === id)).toHaveLength(1);
      }
      // Every task the killed server had checkpointed was never asked again; only the call in flight repeats.
      const calls = agent.calls.filter((call) => call.body?.run_id === accepted.run_id).map((call) => call.body.task_id);
      const repeated = [...new Set(calls.filter((id, index) => calls.indexOf(id) !== index))];
      expect(repeated.length).toBeLessThanOrEqual(1);
      for (const id of repeated) expect(callsAtKill.at(-1)).toBe(id);
      expect(new Set(calls)).toEqual(new Set(tasks.map(({ id }) => id)));

      const certificate = await fetch(`${second.url}/v1/certificates/${accepted.run_id}`);
      expect(certificate.status).toBe(200);
      process.kill(-second.child.pid!, 'SIGTERM');
    } finally {
      await agent.close();
    }
  }, 180_000);

  it('a concurrent run (conversation per_task) resumes too: whole units in order, only the units in flight repeat', async () => {
    const agent = await startLocalAgent({ delayMs: 300 });
    const root = mkdtempSync(join(tmpdir(), 'aeh-kill-'));
    try {
      const tasks = Array.from({ length: 24 }, (_, index) => ({ id: `p${index + 1}`, input: `question ${index + 1}`, expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }));
      const first = await serve(root, '127.0.0.1');
      const scenario = scriptedScenario('kill-concurrent', { tasks, conversation: 'per_task', concurrency: 4 });
      const accepted = JSON.parse((await api(first.url, 'POST', '/api/evaluate', { scenario, agent: { adapter: 'http', url: `${agent.url}/agent` } })).text);
      await killAfter(first, accepted.status_url, 6);
      const second = await serve(root, '127.0.0.1');
      expect(await finalTask(second.url, accepted.status_url)).toMatchObject({ status: 'succeeded', progress: { done: 24, total: 24 } });
      const trace = await traceOf(second.url, accepted.run_id);
      expect(trace.map((event) => event.seq)).toEqual(trace.map((_, index) => index));
      const order = [...new Set(trace.filter((event) => event.task_id).map((event) => event.task_id))];
      expect(order).toEqual(tasks.map(({ id }) => id));
      for (const { id } of tasks) expect(trace.filter((event) => event.type === 'agent_output' && event.task_id === id)).toHaveLength(1);
      const calls = agent.calls.filter((call) => call.body?.run_id === accepted.run_id).map((call) => call.body.task_id);
      const repeated = [...new Set(calls.filter((id, index) => calls.indexOf(id) !== index))];
      // At most the units in flight (the run's concurrency) were asked again.
      expect(repeated.length).toBeLessThanOrEqual(4);
      expect(new Set(calls)).toEqual(new Set(tasks.map(({ id }) => id)));
      process.kill(-second.child.pid!, 'SIGTERM');
    } finally {
      await agent.close();
    }
  }, 180_000);
});
