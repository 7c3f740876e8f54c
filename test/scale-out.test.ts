/**
 * Scale-out proof (issue 9 item 3): two real service processes (`node dist/runtime/node.js`) on one Redis, with
 * separate project roots and the same key. Evaluations submitted to A are executed by both instances and
 * verified on B; then 100 queued runs against a slow local HTTP agent, A killed with SIGKILL while they run,
 * and every run still finishes exactly once: succeeded, one continuous trace (seq 0..n, one run_start, one
 * run_end, each scenario task answered once in the trace), a valid certificate.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, SKIP_REDIS, type RedisServer } from './redis-server.ts';
import { startService, call, REPO, SMOKE_SCENARIO, type RunningService } from './runtime-smoke.ts';
import { startLocalAgent, type LocalAgent } from './evaluation-local-agent.ts';

const CONCURRENCY = 8;
const FINAL = new Set(['succeeded', 'failed', 'cancelled']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RedisServer | undefined;
let agent: LocalAgent | undefined;
let a: RunningService | undefined;
let b: RunningService | undefined;

function instance(redisUrl: string): Promise<RunningService> {
  return startService(process.execPath, [join(REPO, 'dist/runtime/node.js')], {
    AEH_STORAGE: redisUrl,
    PROJECT_ROOT: mkdtempSync(join(tmpdir(), 'aeh-scale-')),
    AEH_ALLOW_HOSTS: '127.0.0.1',
    AEH_CONCURRENCY: String(CONCURRENCY),
    // Nothing from the test runner's environment may configure the service.
    AEH_PLUGINS: '', AEH_DATA_DIR: '', NODE_OPTIONS: '',
  });
}

beforeAll(async () => {
  if (SKIP_REDIS) return;
  execFileSync(process.execPath, [join(REPO, 'scripts/build.mjs'), '--if-stale'], { cwd: REPO, stdio: 'ignore' });
  [redis, agent] = await Promise.all([startRedis(), startLocalAgent({ delayMs: 100 })]);
  [a, b] = await Promise.all([instance(redis.url), instance(redis.url)]);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await Promise.allSettled([redis?.stop(), agent?.close()]);
});

/** The smoke scenario (task_success + refusal), answered by the slow local HTTP agent. */
function slowScenario(index: number) {
  return { scenario: { ...SMOKE_SCENARIO, id: `scale-out-${index}` }, agent: { adapter: 'http', url: `${agent!.url}/agent` } };
}

async function submit(service: RunningService, count: number, offset = 0): Promise<Array<{ task_id: string; run_id: string }>> {
  const accepted: Array<{ task_id: string; run_id: string }> = [];
  for (let start = 0; start < count; start += 20) {
    const batch = await Promise.all(Array.from({ length: Math.min(20, count - start) }, (_, i) => call(service.base, 'POST', '/api/evaluate', slowScenario(offset + start + i))));
    for (const response of batch) {
      expect(response.status, response.text).toBe(202);
      accepted.push(response.json);
    }
  }
  return accepted;
}

/** Polls the tasks through `service` until every one is final; returns them by task id. */
async function allFinal(service: RunningService, taskIds: string[], timeoutMs: number): Promise<Map<string, any>> {
  const done = new Map<string, any>();
  const deadline = Date.now() + timeoutMs;
  while (done.size < taskIds.length && Date.now() < deadline) {
    const pending = taskIds.filter((id) => !done.has(id));
    for (let start = 0; start < pending.length; start += 25) {
      const slice = pending.slice(start, start + 25);
      const tasks = await Promise.all(slice.map((id) => call(service.base, 'GET', `/api/v1/tasks/${id}`)));
      tasks.forEach((task, i) => FINAL.has(task.json?.status) && done.set(slice[i]!, task.json));
    }
    if (done.size < taskIds.length) await sleep(200);
  }
  return done;
}

async function telemetry(service: RunningService): Promise<Record<string, number>> {
  return (await call(service.base, 'GET', '/api/info')).json.telemetry;
}

/** Checks on `service` that a run ended once: succeeded, continuous trace with one start and one end, valid certificate. */
async function expectFinishedOnce(service: RunningService, runId: string): Promise<void> {
  const trace = (await call(service.base, 'GET', `/api/v1/runs/${runId}/trace`)).text.trim().split('\n').map((line) => JSON.parse(line));
  expect(trace.map((event) => event.seq)).toEqual(trace.map((_, index) => index));
  expect(trace.filter((event) => event.type === 'run_start')).toHaveLength(1);
  expect(trace.filter((event) => event.type === 'run_end')).toHaveLength(1);
  expect(trace.at(-1)).toMatchObject({ type: 'run_end', data: { status: 'succeeded' } });
  for (const id of ['t1', 't2']) expect(trace.filter((event) => event.type === 'agent_output' && event.task_id === id)).toHaveLength(1);
  const verified = await call(service.base, 'GET', `/api/v1/verify/${runId}`);
  expect(verified.json).toMatchObject({ run_id: runId, valid: true, status: 'valid' });
}

describe.skipIf(SKIP_REDIS)('scale-out: two instances on one Redis', () => {
  it('evaluations submitted to A are executed by both instances and verified on B', async () => {
    const infoA = await call(a!.base, 'GET', '/api/info');
    expect(infoA.json).toMatchObject({ storage: { driver: 'redis' }, queue: { kind: 'bullmq', concurrency: CONCURRENCY } });
    // Twice A's concurrency: A cannot hold them all, so B takes its share from the shared queue.
    const accepted = await submit(a!, 2 * CONCURRENCY);
    const tasks = await allFinal(b!, accepted.map((task) => task.task_id), 30_000);
    expect(tasks.size).toBe(accepted.length);
    for (const task of tasks.values()) expect(task.status).toBe('succeeded');
    await Promise.all(accepted.map(({ run_id }) => expectFinishedOnce(b!, run_id)));
    const [byA, byB] = await Promise.all([telemetry(a!), telemetry(b!)]);
    expect(byA['queue.tasks_started']).toBeGreaterThan(0);
    expect(byB['queue.tasks_started']).toBeGreaterThan(0);
    expect(byA['queue.tasks_started']! + byB['queue.tasks_started']!).toBe(accepted.length);
  }, 60_000);

  it('kill -9 of one instance during 100 queued runs: every run still finishes exactly once', async () => {
    const before = [await telemetry(a!), await telemetry(b!)].reduce((sum, counters) => sum + (counters['queue.tasks_ended'] ?? 0), 0);
    const callsBefore = agent!.calls.length;
    // Every run is queued before any can end: the instances took their first tasks and wait on the agent. Run
    // as they were submitted, most had ended before the first poll on a busy machine, and the kill could land
    // after A's last task, leaving nothing to take over.
    const release = agent!.hold();
    let accepted: Array<{ task_id: string; run_id: string }>;
    try {
      accepted = await submit(a!, 100, 1000);
    } finally {
      release();
    }
    // Kill A a quarter of the way through, while it holds tasks (its own count of started and ended ones).
    let heldByA = 0;
    for (let waited = 0; waited < 30_000; waited += 25) {
      const [byA, byB] = await Promise.all([telemetry(a!), telemetry(b!)]);
      const ended = (byA['queue.tasks_ended'] ?? 0) + (byB['queue.tasks_ended'] ?? 0) - before;
      heldByA = (byA['queue.tasks_started'] ?? 0) - (byA['queue.tasks_ended'] ?? 0);
      if (ended >= 25 && heldByA > 0) break;
      await sleep(25);
    }
    expect(heldByA).toBeGreaterThan(0);
    const exited = new Promise((resolve) => a!.child.once('exit', resolve));
    a!.child.kill('SIGKILL');
    await exited;

    // A's tasks come back to the queue once their claims expire (seconds); B resumes them from their tokens.
    const tasks = await allFinal(b!, accepted.map((task) => task.task_id), 40_000);
    expect(tasks.size).toBe(100);
    for (const task of tasks.values()) expect(task).toMatchObject({ status: 'succeeded', progress: { done: 2, total: 2 } });
    for (let start = 0; start < accepted.length; start += 20) {
      await Promise.all(accepted.slice(start, start + 20).map(({ run_id }) => expectFinishedOnce(b!, run_id)));
    }
    // B took over the tasks A held when it died (its stalled-claim check logs each one it returned to the queue).
    const takenOver = b!.logs().split('\n').filter((line) => line.includes('returned to the queue'));
    expect(takenOver.length).toBeGreaterThan(0);
    expect(takenOver.length).toBeLessThanOrEqual(CONCURRENCY);
    // Only agent calls A had in flight when it died can have been asked again; everything checkpointed was not.
    const calls = agent!.calls.slice(callsBefore).map((entry) => `${entry.body?.run_id}/${entry.body?.task_id}`);
    const repeated = new Set(calls.filter((key, index) => calls.indexOf(key) !== index));
    expect(new Set(calls).size).toBe(200);
    expect(repeated.size).toBeLessThanOrEqual(takenOver.length);
  }, 90_000);
});
