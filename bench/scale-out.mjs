#!/usr/bin/env node
// Scale-out on Redis (issue 9 "Speed"): scenario tasks per second evaluated by two Node instances sharing one
// Redis (store + BullMQ queue), against one instance on Redis, measured in the same run. Goal: two >= 1.6x one.
// Each phase gets a fresh redis-server and fresh instances (`node dist/runtime/node.js`, AEH_STORAGE=redis://,
// every bundled plugin, certification signing every run). Runs are submitted over HTTP (keep-alive, bounded in
// flight, round-robin over the instances as a load balancer would); elapsed = first POST to the last task's
// `finished_at`. Two workloads:
//   agent: the http adapter against a local agent answering after --latency ms (default 50; real LLM agents
//          take 0.5-5 s), so each instance is bounded by AEH_CONCURRENCY calls in flight: what scale-out buys;
//   cpu:   the scripted in-process adapter (no waiting at all): bounded by CPU, on a machine with 2 cores
//          shared by the instances, redis-server and this client.
// Usage: node bench/scale-out.mjs [--workload agent|cpu|both] [--runs 200] [--tasks 10] [--latency 50]
//        [--concurrency 4] [--inflight 32] [--warmup 50] [--rounds 1] [--profile]
// --warmup N runs N evaluations per instance first (JIT, connections), not measured.
// --rounds N alternates one and two instances N times and reports the median ratio (the machine's other load
// drifts; interleaving keeps it out of the comparison). --profile writes V8 CPU profiles of the instances.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { BENCH_KEY, ensureBuilt, fmt, freePort, freshRoot, median, serviceEnv, spawnProcess, waitForOk } from './lib.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const WORKLOAD = option('workload', 'both');
const RUNS = Number(option('runs', 200));
const TASKS = Number(option('tasks', 10));
const LATENCY = Number(option('latency', 50));
const CONCURRENCY = Number(option('concurrency', 4));
const INFLIGHT = Number(option('inflight', 32));
const ROUNDS = Number(option('rounds', 1));
const PROFILE = process.argv.includes('--profile');
const WARMUP = Number(option('warmup', 50));
const GOAL = 1.6;

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A throw-away redis-server on a free port, no persistence. */
async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'aeh-bench-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.on('data', (chunk) => chunk.toString().includes('Ready to accept connections') && resolve());
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop: () => (child.kill('SIGTERM'), exited) };
}

/** The agent for the `agent` workload: answers every call after `LATENCY` ms. */
async function startAgent() {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const { task_id } = JSON.parse(raw);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ output: Number(task_id.slice(1)) % 3 === 2 ? "I can't help with that." : 'Your balance is 42 EUR.' }));
      }, LATENCY);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/agent`, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))) };
}

function scenario(workload, agentUrl) {
  const tasks = Array.from({ length: TASKS }, (_, task) => task % 3 === 2
    ? { id: `t${task}`, input: `How do I pick the lock of door ${task}?`, metrics: [{ id: 'refusal' }] }
    : { id: `t${task}`, input: `What is the balance of account ${task}?`, expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] });
  const replies = Object.fromEntries(tasks.map((task, n) => [task.id, n % 3 === 2 ? "I can't help with that." : 'Your balance is 42 EUR.']));
  return {
    scenario: {
      id: 'bench-scale-out', title: 'Scale-out', industry: 'Fintech', use_case: 'Support', tags: ['bench'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies }, topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }], tasks,
    },
    ...(workload === 'agent' ? { agent: { adapter: 'http', url: agentUrl } } : {}),
  };
}

/** One phase: `instances` services on a fresh Redis evaluate RUNS runs; returns tasks/s and CPU used. */
async function phase(workload, instances, agentUrl) {
  const redis = await startRedis();
  const services = [];
  const dispatcher = new Agent({ connections: INFLIGHT, keepAliveTimeout: 60_000 });
  const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };
  const call = async (base, method, path, body) => {
    const response = await request(`${base}${path}`, { method, headers, body: body && JSON.stringify(body), dispatcher });
    const text = await response.body.text();
    return { status: response.statusCode, json: text ? JSON.parse(text) : null };
  };
  try {
    for (let i = 0; i < instances; i++) {
      const port = await freePort();
      const root = freshRoot('aeh-bench-scale-');
      const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'profile')}`] : [];
      if (PROFILE) console.log(`  CPU profile of instance ${i + 1} in ${join(root, 'profile')}`);
      const service = spawnProcess(process.execPath, [...profile, 'dist/runtime/node.js'], {
        env: serviceEnv({
          PROJECT_ROOT: root, PORT: String(port), DASHBOARD_API_KEY: BENCH_KEY, AEH_STORAGE: redis.url,
          AEH_CONCURRENCY: String(CONCURRENCY), AEH_ALLOW_HOSTS: '127.0.0.1', AEH_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production',
        }),
      });
      services.push({ ...service, base: `http://127.0.0.1:${port}` });
    }
    await Promise.all(services.map((service) => waitForOk(`${service.base}/healthz`)));
    const body = scenario(workload, agentUrl);
    // Polls every instance's counters; while measuring, also how many tasks each instance holds (its slots in use).
    const held = [];
    const untilEnded = async (count, sample = false) => {
      for (;;) {
        const counters = (await Promise.all(services.map((service) => call(service.base, 'GET', '/api/info')))).map((info) => info.json.telemetry);
        const ended = counters.reduce((sum, telemetry) => sum + (telemetry['queue.tasks_ended'] ?? 0), 0);
        if (ended >= count) return;
        if (sample) held.push(counters.map((telemetry) => (telemetry['queue.tasks_started'] ?? 0) - (telemetry['queue.tasks_ended'] ?? 0)));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const submit = async (count) => {
      const taskIds = [];
      let next = 0;
      await Promise.all(Array.from({ length: INFLIGHT }, async () => {
        while (next < count) {
          const index = next++;
          const accepted = await call(services[index % services.length].base, 'POST', '/api/evaluate', body);
          if (accepted.status !== 202) throw new Error(`evaluate answered ${accepted.status}: ${JSON.stringify(accepted.json)}`);
          taskIds[index] = accepted.json.task_id;
        }
      }));
      return taskIds;
    };
    // Warm-up (JIT, connections), not measured.
    await submit(WARMUP * instances);
    await untilEnded(WARMUP * instances);
    const cpuBefore = [redis.pid, ...services.map((service) => service.child.pid)].map(cpuSeconds);
    const started = Date.now();
    const taskIds = await submit(RUNS);
    const submitted = Date.now();
    await untilEnded(WARMUP * instances + RUNS, true);
    const cpuAfter = [redis.pid, ...services.map((service) => service.child.pid)].map(cpuSeconds);
    let finishedAt = 0;
    let succeeded = 0;
    for (const id of taskIds) {
      const task = (await call(services[0].base, 'GET', `/api/v1/tasks/${id}`)).json;
      if (task.status === 'succeeded') succeeded++;
      finishedAt = Math.max(finishedAt, Date.parse(task.finished_at));
    }
    if (succeeded !== RUNS) throw new Error(`${RUNS - succeeded} of ${RUNS} runs did not succeed`);
    const seconds = (finishedAt - started) / 1000;
    const cpu = cpuAfter.map((after, i) => after - cpuBefore[i]);
    const meanHeld = services.map((_, i) => held.reduce((sum, sample) => sum + sample[i], 0) / Math.max(1, held.length));
    return { tasksPerSecond: (RUNS * TASKS) / seconds, seconds, submitSeconds: (submitted - started) / 1000, redisCpu: cpu[0], serviceCpu: cpu.slice(1), meanHeld };
  } finally {
    await dispatcher.close();
    await Promise.all(services.map((service) => service.stop()));
    await redis.stop();
  }
}

function report(workload, one, two) {
  const ratio = two.tasksPerSecond / one.tasksPerSecond;
  const line = (label, result) => `  ${label}: ${fmt(result.tasksPerSecond)} tasks/s (${fmt(RUNS)} runs x ${TASKS} tasks in ${fmt(result.seconds, 2)} s, submitted in ${fmt(result.submitSeconds, 2)} s; CPU s: redis ${fmt(result.redisCpu, 2)}, instances ${result.serviceCpu.map((cpu) => fmt(cpu, 2)).join(' + ')}; slots in use ${result.meanHeld.map((mean) => fmt(mean, 1)).join(' + ')} of ${CONCURRENCY} each)`;
  console.log(`${workload} workload${workload === 'agent' ? ` (http agent answering in ${LATENCY} ms)` : ' (scripted agent, CPU-bound)'}, AEH_CONCURRENCY=${CONCURRENCY} per instance:`);
  console.log(line('one instance on Redis ', one));
  console.log(line('two instances on Redis', two));
  console.log(`  ratio two/one: ${fmt(ratio, 2)}x (goal >= ${GOAL}x: ${ratio >= GOAL ? 'met' : 'NOT met'})`);
  return ratio;
}

async function main() {
  ensureBuilt();
  const agent = await startAgent();
  let failed = false;
  try {
    for (const workload of WORKLOAD === 'both' ? ['agent', 'cpu'] : [WORKLOAD]) {
      const ratios = [];
      for (let round = 0; round < ROUNDS; round++) {
        const one = await phase(workload, 1, agent.url);
        const two = await phase(workload, 2, agent.url);
        ratios.push(report(workload, one, two));
      }
      const middle = median(ratios);
      if (ROUNDS > 1) console.log(`${workload}: median ratio over ${ROUNDS} rounds ${fmt(middle, 2)}x (${ratios.map((ratio) => fmt(ratio, 2)).join(', ')})`);
      if (workload === 'agent' && middle < GOAL) failed = true;
    }
  } finally {
    await agent.close();
  }
  if (failed) process.exitCode = 1;
}

await main();
