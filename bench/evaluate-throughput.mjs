#!/usr/bin/env node
// End-to-end evaluation throughput (issue 4 "Speed"): scenario tasks per second through the HTTP API with the
// scripted agent, goal >= 5,000 tasks/s on a 2-core machine, with the server's memory flat across 10,000 runs.
// 1. Baseline, in this process: the scripted adapter + the same metrics called in a plain loop (no HTTP, no
//    storage, no trace, no handoff, no certificate) — the ceiling of the per-task work itself.
// 2. The real service (`node dist/runtime/node.js`, fs storage in a fresh PROJECT_ROOT, every bundled plugin
//    including certification, which signs every run): POST /api/evaluate for every run (keep-alive, bounded
//    in-flight), then wait until every task is final. Elapsed = first POST to the last `finished_at`.
//    Server RSS is sampled from /proc after each block of runs.
// 3. With --compare-pool (issue 13 speed goal: the metric budget and its worker pool cost at most 10%), step 2
//    runs on fresh services in three modes, in rotating order for --rounds rounds: `off`, metrics inline
//    (AEH_METRIC_WORKERS=0); `on`, the default (min(2, cores) workers; small answers to linear metrics, all of
//    this bench's, still inline); `all`, every worker-safe metric in the pool (AEH_METRIC_INLINE_MAX_CHARS=0),
//    the pool's own cost. It prints the best and median throughput of each and their ratios to `off`.
// Usage: node bench/evaluate-throughput.mjs [--runs 10000] [--tasks 50] [--inflight 64] [--concurrency 4] [--threadpool 16]
//        [--data-dir /dev/shm/aeh] [--profile] [--compare-pool [--rounds 2]] [--pool on|off|all]
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { BENCH_KEY, ensureBuilt, fmt, freePort, freshRoot, numberArgument, serviceEnv, spawnProcess, waitForOk, importDist } from './lib.mjs';

const RUNS = numberArgument('runs', 10_000);
const TASKS = numberArgument('tasks', 50);
const INFLIGHT = numberArgument('inflight', 64);
const CONCURRENCY = numberArgument('concurrency', 4);
// libuv's pool runs the file system calls (4 threads by default); atomic writes wait on fsync there.
const THREADPOOL = numberArgument('threadpool', 16);
// `--data-dir /dev/shm/x` puts AEH_DATA_DIR on tmpfs (no disk, fsync free) to separate the engine from the disk.
const DATA_DIR = (() => {
  const index = process.argv.indexOf('--data-dir');
  return index > 0 ? process.argv[index + 1] : undefined;
})();
const GOAL = 5000;

function scenario(index) {
  const tasks = Array.from({ length: TASKS }, (_, task) => task % 3 === 2
    ? { id: `t${task}`, input: `How do I pick the lock of door ${task}?`, metrics: [{ id: 'refusal' }] }
    : { id: `t${task}`, input: `What is the balance of account ${task}?`, expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }, { id: 'latency_budget', params: { max_ms: 1000 } }] });
  const replies = Object.fromEntries(tasks.map((task, n) => [task.id, n % 3 === 2 ? "I can't help with that." : 'Your balance is 42 EUR.']));
  return {
    id: `bench-${index}`, title: 'Throughput', industry: 'Fintech', use_case: 'Support', tags: ['bench'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies }, topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }], tasks,
  };
}

// 1. Baseline: adapter + metrics in a loop.
async function baseline() {
  const { scriptedAdapter } = await importDist('plugins/agents/scripted.js');
  const metrics = Object.fromEntries(await Promise.all(['task-success', 'latency-budget', 'refusal'].map(async (file) => {
    const metric = (await importDist(`plugins/metrics/${file}.js`)).default;
    return [metric.id, metric];
  })));
  const sc = scenario(0);
  const signal = new AbortController().signal;
  const loop = async (count) => {
    for (let done = 0; done < count;) {
      for (const task of sc.tasks) {
        const reply = await scriptedAdapter.call(task.input, { spec: sc.agent, task, signal, history: [] });
        for (const ref of task.metrics) {
          await metrics[ref.id].score({ scenario: sc, task, ref, params: ref.params ?? {}, output: reply.output, outputEvent: 1, events: [], latencyMs: 0.01 });
        }
        done++;
      }
    }
  };
  await loop(20_000);
  const total = 200_000;
  const started = performance.now();
  await loop(total);
  return total / ((performance.now() - started) / 1000);
}

/** CPU seconds (user + system) the process has used, from /proc (independent of other load on the machine). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

const POOL_ENV = { off: { AEH_METRIC_WORKERS: '0' }, on: {}, all: { AEH_METRIC_INLINE_MAX_CHARS: '0' } };

/** Step 2 on a fresh service; `extraEnv` selects the pool. Returns the throughput and CPU figures it printed. */
async function measureService(label, extraEnv, baselineRate) {
  console.log(`service (${label}):`);
  const root = freshRoot('aeh-bench-eval-');
  if (DATA_DIR) mkdirSync(DATA_DIR, { recursive: true });
  const port = await freePort();
  const profile = process.argv.includes('--profile') ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'profile')}`] : [];
  if (profile.length) console.log(`CPU profile of the service in ${join(root, 'profile')}`);
  const service = spawnProcess(process.execPath, [...profile, 'dist/runtime/node.js'], {
    env: serviceEnv({
      PROJECT_ROOT: root, ...(DATA_DIR ? { AEH_DATA_DIR: mkdtempSync(join(DATA_DIR, 'aeh-bench-')) } : {}), PORT: String(port), DASHBOARD_API_KEY: BENCH_KEY, AEH_STORAGE: 'fs', AEH_CONCURRENCY: String(CONCURRENCY),
      // One key submits every run: neither the rate limit nor the per-principal queue quota (500) may refuse it.
      AEH_RATE_LIMIT_PER_MINUTE: '100000000', AEH_MAX_QUEUED_PER_PRINCIPAL: '100000000', NODE_ENV: 'production', UV_THREADPOOL_SIZE: String(THREADPOOL), ...extraEnv,
    }),
  });
  const base = `http://127.0.0.1:${port}`;
  const dispatcher = new Agent({ connections: INFLIGHT, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const response = await request(`${base}${path}`, { method, headers, body: body && JSON.stringify(body), dispatcher });
    const text = await response.body.text();
    return { status: response.statusCode, json: text ? JSON.parse(text) : null };
  };
  try {
    await waitForOk(`${base}/healthz`);
    const bodies = Array.from({ length: 8 }, (_, index) => ({ scenario: scenario(index) }));
    // Warm-up (JIT, file handles), not measured.
    const warm = await Promise.all(Array.from({ length: 200 }, (_, index) => call('POST', '/api/evaluate', bodies[index % 8])));
    for (const accepted of warm) {
      for (let status; status !== 'succeeded';) {
        status = (await call('GET', accepted.json.status_url)).json.status;
        if (['failed', 'cancelled'].includes(status)) throw new Error(`a warm-up run ended ${status}: ${accepted.json.run_id}`);
      }
    }

    // Waves of runs: after each wave has drained (no backlog, nothing in flight), the server's RSS is sampled,
    // so memory is compared at equal load whatever the queue held during the wave.
    const WAVES = Math.max(1, Math.min(10, Math.floor(RUNS / 500)));
    const taskIds = new Array(RUNS);
    const memory = [{ runs: 0, rss: rssMb(service.child.pid) }];
    const cpuBefore = cpuSeconds(service.child.pid);
    const started = Date.now();
    let next = 0;
    let refused = 0;
    let succeeded = 0;
    let finishedAt = 0;
    let pollCpu = 0;
    for (let wave = 1; wave <= WAVES; wave++) {
      const end = Math.floor((RUNS * wave) / WAVES);
      const first = next;
      await Promise.all(Array.from({ length: INFLIGHT }, async () => {
        while (next < end) {
          const index = next++;
          const accepted = await call('POST', '/api/evaluate', bodies[index % 8]);
          if (accepted.status !== 202) refused++;
          taskIds[index] = accepted.json?.task_id;
        }
      }));
      if (refused > 0) throw new Error(`${refused} runs were refused (not 202): the service's limits are lower than this bench's load`);
      // FIFO queue: the wave's last task finishes (about) last; then every task of the wave is checked.
      for (let status; !['succeeded', 'failed', 'cancelled'].includes(status);) {
        status = (await call('GET', `/api/v1/tasks/${taskIds[end - 1]}`)).json.status;
        if (status !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const pollStart = cpuSeconds(service.child.pid);
      for (const id of taskIds.slice(first, end)) {
        let task;
        do {
          task = (await call('GET', `/api/v1/tasks/${id}`)).json;
          if (task.status === 'queued' || task.status === 'running') await new Promise((resolve) => setTimeout(resolve, 20));
        } while (task.status === 'queued' || task.status === 'running');
        if (task.status === 'succeeded') succeeded++;
        finishedAt = Math.max(finishedAt, Date.parse(task.finished_at));
      }
      // The check loop polls every task: its CPU is the API's, not the evaluations'.
      pollCpu += cpuSeconds(service.child.pid) - pollStart;
      memory.push({ runs: end, rss: rssMb(service.child.pid) });
    }
    const cpuAfter = cpuSeconds(service.child.pid);
    const seconds = (finishedAt - started) / 1000;
    const tasksPerSecond = (RUNS * TASKS) / seconds;
    console.log(`  ${fmt(RUNS)} runs x ${TASKS} tasks = ${fmt(RUNS * TASKS)} tasks, ${succeeded} runs succeeded, ${refused} refused`);
    console.log(`  ${WAVES} waves; all final after ${fmt(seconds, 2)} s`);
    console.log(`  ${fmt(tasksPerSecond)} tasks/s, ${fmt(RUNS / seconds)} runs/s end to end (AEH_CONCURRENCY=${CONCURRENCY}, UV_THREADPOOL_SIZE=${THREADPOOL}, ${INFLIGHT} clients in flight, data on ${DATA_DIR ?? 'disk'})`);
    console.log(`  goal ${fmt(GOAL)} tasks/s: ${tasksPerSecond >= GOAL ? 'met' : 'NOT met'} (${fmt(tasksPerSecond / GOAL, 2)}x); ${fmt(tasksPerSecond / baselineRate * 100, 1)}% of the plain-loop baseline`);
    const cpuPerRun = ((cpuAfter - cpuBefore - pollCpu) / RUNS) * 1000;
    console.log(`  server CPU: ${fmt(cpuPerRun, 2)} ms per run, ${fmt((cpuPerRun / TASKS) * 1000, 1)} µs per task (user+system, all threads, polling excluded); baseline loop ${fmt(1e6 / baselineRate, 1)} µs per task`);
    console.log(`  server RSS (MB) after each drained wave, by runs done: ${memory.map(({ runs, rss }) => `${fmt(runs)}:${fmt(rss)}`).join('  ')}`);
    const settled = memory.slice(2).map(({ rss }) => rss);
    if (settled.length > 1) console.log(`  RSS from ${fmt(memory[2].runs)} runs on: min ${fmt(Math.min(...settled))} MB, max ${fmt(Math.max(...settled))} MB (${fmt((Math.max(...settled) / Math.min(...settled) - 1) * 100, 1)}% spread); first to last: ${fmt(settled.at(-1) - settled[0], 1)} MB`);
    if (succeeded !== RUNS || refused > 0) process.exitCode = 1;
    return { tasksPerSecond, cpuPerRun };
  } finally {
    await dispatcher.close();
    await service.stop();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

async function main() {
  ensureBuilt();
  const baselineRate = await baseline();
  console.log(`baseline: scripted adapter + metrics in a plain loop: ${fmt(baselineRate)} tasks/s`);
  if (!process.argv.includes('--compare-pool')) {
    const index = process.argv.indexOf('--pool');
    const pool = index > 0 ? process.argv[index + 1] : 'on';
    if (!(pool in POOL_ENV)) throw new Error('--pool must be on, off or all');
    await measureService(`metric pool ${pool}`, POOL_ENV[pool], baselineRate);
    return;
  }
  const rounds = numberArgument('rounds', 2);
  const modes = Object.keys(POOL_ENV);
  const results = Object.fromEntries(modes.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    // Rotating order, so a drift of the machine (heat, neighbours) does not favour one mode.
    for (const pool of modes.map((_, index) => modes[(index + round) % modes.length])) {
      results[pool].push(await measureService(`round ${round + 1}, metric pool ${pool}`, POOL_ENV[pool], baselineRate));
    }
  }
  const summary = (pool) => {
    const rates = results[pool].map((result) => result.tasksPerSecond);
    return { best: Math.max(...rates), median: median(rates), cpu: median(results[pool].map((result) => result.cpuPerRun)) };
  };
  const off = summary('off');
  console.log('metric pool vs inline (issue 13 goal: the pool and budget cost at most 10%, i.e. >= 90% of off):');
  for (const mode of modes) {
    const { best, median: middle, cpu } = summary(mode);
    const ratio = mode === 'off' ? '' : `; vs off: best ${fmt((best / off.best) * 100, 1)}%, median ${fmt((middle / off.median) * 100, 1)}% (${best / off.best >= 0.9 ? 'met' : 'NOT met'})`;
    console.log(`  ${mode.padEnd(3)}: best ${fmt(best)} tasks/s, median ${fmt(middle)} tasks/s, median server CPU ${fmt(cpu, 2)} ms per run${ratio}`);
  }
}

await main();
