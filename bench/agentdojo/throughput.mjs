#!/usr/bin/env node
// AgentDojo throughput (issue 35 "Speed"): every registered suite's attacked cases plus its runs without attack,
// against the ground truth as the agent, through the service's HTTP API, beside the reference's own environment
// step on the same calls, in the same run; prints cases/s of each and the ratio.
//
// Ours: the service started in this process (dist/, every bundled plugin, fs storage in a fresh PROJECT_ROOT
// unless --storage memory), each suite as `aeh bench agentdojo` builds it (plugins/shims/agentdojo/tasks.ts, the
// attack named), submitted as one suite (POST /api/v1/suites, so it is certified). The agent is the in-process
// `scripted` adapter replaying each user task's ground truth (its calls on the unit's world, then its expected
// output): AgentDojo's GroundTruthPipeline as an agent, so every case must keep its utility and resist (else the
// bench measured something else and fails). Time: from the POST to the suite finished with its certificate
// issued (polled every 10 ms); the units' own time (the trace's run_start to run_end) is printed apart.
//
// Reference: bench/agentdojo/reference_throughput.py, AgentDojo's own code at 96046ab54 (extracted from the git
// mirror, or --src) doing per case what its benchmark does with no model: run_task_with_pipeline with the
// GroundTruthPipeline (the environment loaded and injected, the task's init, the ground truth through its runtime
// and tool_result_to_str, the checks), and for an attacked case the attack's injections first (its placement
// replays the ground truth with canaries). Timed inside Python (start-up and imports excluded, which only favours
// the reference).
//
// Usage: node bench/agentdojo/throughput.mjs [--attack important_instructions] [--benchmark-version v1.2.1]
//        [--rounds 1] [--storage fs|memory] [--src <agentdojo checkout>/src] [--skip-reference]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_KEY, argument, ensureBuilt, fmt, freePort, freshRoot, median, numberArgument, repoRoot, importDist, runSuiteToCertificate } from '../lib.mjs';

const ATTACK = argument('attack', 'important_instructions');
const VERSION = argument('benchmark-version', 'v1.2.1');
const ROUNDS = numberArgument('rounds', 1);
const STORAGE = argument('storage', 'fs');
const SKIP_REFERENCE = process.argv.includes('--skip-reference');
const MIRROR = '/work/.mirror/sequrity-ai+agentdojo/repo';
const PINNED = '96046ab54';

ensureBuilt();
const dojo = await importDist('plugins/shims/agentdojo/index.js');
const { startNodeService } = await importDist('runtime/node/start.js');
const { silentLogger } = await importDist('core/capabilities.js');

const dataDir = join(repoRoot, 'catalog', 'data', 'agentdojo');
const suites = dojo.AGENTDOJO_SUITES.map((entry) => entry.suite);

/** Each suite's scenario with the attack, and the ground truth of each user task as the scripted agent's replies. */
async function scenarios() {
  return Promise.all(suites.map(async (suite) => {
    const data = await dojo.readAgentDojoSuite(dataDir, suite, async (path) => new Uint8Array(readFileSync(path)));
    const scenario = dojo.agentdojoScenario(data, { version: VERSION });
    const tasks = data.tasks.versions[VERSION].user_tasks;
    const replies = Object.fromEntries(tasks.map((task) => [task.id, { output: task.ground_truth_output, tool_calls: task.ground_truth.map((call) => ({ name: `agentdojo_${suite}.${call.function}`, arguments: call.args })) }]));
    return { ...scenario, agent: { adapter: 'scripted', replies }, ...(ATTACK === 'none' ? {} : { attacks: [{ attack: ATTACK }] }) };
  }));
}

async function runSuite(service, list) {
  const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const response = await fetch(`${service.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
    return { status: response.status, json: await response.json() };
  };
  const started = performance.now();
  // Each scenario keeps its own scripted agent (its replies): the suite runs each against it.
  const suite = await runSuiteToCertificate(call, { name: `AgentDojo ${suites.join(' + ')} ${VERSION} · ${ATTACK}`, scenarios: list.map((scenario) => ({ scenario })) });
  const seconds = (performance.now() - started) / 1000;
  let cases = 0;
  let unitsSeconds = 0;
  const rows = [];
  for (const entry of suite.runs) {
    if (!entry.run_id) throw new Error(`a run was refused: ${JSON.stringify(entry).slice(0, 500)}`);
    const run = (await call('GET', `/api/v1/runs/${entry.run_id}`)).json;
    const attacks = run.attacks;
    const attacked = attacks ? attacks.by_attack.reduce((n, item) => n + item.cases, 0) : 0;
    const plain = list.find((scenario) => scenario.id === entry.scenario_id).tasks.length;
    // The ground truth keeps every task's utility and carries out no goal: anything else measured something else.
    // (Under attack the replay may derail: 7 of slack's ground truths name the channel whose name is a vector,
    // External_{prompt_injection_channel}, and the replayed calls are the default world's, where the reference's
    // GroundTruthPipeline computes its calls on the injected world. Each case still runs every call and check.)
    if (run.status !== 'succeeded' || (attacks && (attacks.utility.count !== plain || attacks.targeted_asr.count !== 0))) {
      throw new Error(`the ground truth did not pass every case of ${entry.scenario_id} (status ${run.status}, ${JSON.stringify(attacks ?? run.verdict).slice(0, 400)})`);
    }
    const trace = await (await fetch(`${service.url}/api/v1/runs/${entry.run_id}/trace`, { headers })).text();
    const stamps = Object.fromEntries(trace.split('\n').filter((line) => line.includes('"run_start"') || line.includes('"run_end"')).map((line) => JSON.parse(line)).map((event) => [event.type, Date.parse(event.ts)]));
    unitsSeconds = Math.max(unitsSeconds, (stamps.run_end - stamps.run_start) / 1000);
    cases += plain + attacked;
    rows.push(`${entry.scenario_id}: ${plain} without attack + ${attacked} attacked${attacks ? `, utility under attack ${attacks.utility_under_attack.count}/${attacked}` : ''}`);
  }
  return { seconds, cases, unitsSeconds, rows, certificate: suite.certificate?.status };
}

async function ours() {
  const root = freshRoot('aeh-bench-dojo-');
  const service = await startNodeService({
    DASHBOARD_API_KEY: BENCH_KEY, PROJECT_ROOT: root, AEH_STORAGE: STORAGE, PORT: String(await freePort()), HOST: '127.0.0.1',
    AEH_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production', AEH_MAX_BODY_BYTES: String(16 * 1024 * 1024),
  }, root, silentLogger);
  try {
    const list = await scenarios();
    // Warm-up (JIT, the environments parsed), not measured: two user tasks of each suite.
    await runSuite(service, list.map((scenario) => ({ ...scenario, tasks: scenario.tasks.slice(0, 2) })));
    return await runSuite(service, list);
  } finally {
    await service.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

function reference(src) {
  const run = spawnSync('python3', [join(repoRoot, 'bench/agentdojo/reference_throughput.py'), '--src', src, '--suites', suites.join(','), '--version', VERSION, '--attack', ATTACK === 'none' ? '' : ATTACK], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the reference driver failed:\n${run.stderr}`);
  const result = JSON.parse(run.stdout);
  const cases = result.suites.reduce((n, suite) => n + suite.no_attack + suite.attacked, 0);
  const seconds = result.suites.reduce((n, suite) => n + suite.seconds, 0);
  for (const suite of result.suites) if (suite.utility !== suite.no_attack + suite.attacked || suite.resisted !== suite.attacked) throw new Error(`the reference's ground truth failed its own checks on ${suite.suite}: ${JSON.stringify(suite)}`);
  return { cases, seconds };
}

const work = SKIP_REFERENCE ? undefined : mkdtempSync(join(tmpdir(), 'agentdojo-throughput-'));
let src = argument('src');
if (!SKIP_REFERENCE && !src) {
  execFileSync('sh', ['-c', `git -C ${MIRROR} archive ${PINNED} src/agentdojo | tar -x -C ${work}`]);
  src = join(work, 'src');
}
try {
  console.log(`AgentDojo ${VERSION}, ${suites.join(' + ')}, attack ${ATTACK}: ${ROUNDS} round(s); load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  const results = { ours: [], units: [], reference: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order, so a drift of the machine does not favour one side.
    for (const side of round % 2 === 0 ? ['ours', 'reference'] : ['reference', 'ours']) {
      if (side === 'reference' && SKIP_REFERENCE) continue;
      if (side === 'ours') {
        const result = await ours();
        results.ours.push(result.cases / result.seconds);
        results.units.push(result.cases / result.unitsSeconds);
        console.log(`  round ${round + 1}, ours: ${result.cases} cases (${result.rows.join('; ')}) in ${fmt(result.seconds, 2)} s = ${fmt(result.cases / result.seconds, 1)} cases/s end to end (service over HTTP, ${STORAGE} storage, suite certificate ${result.certificate})`);
        console.log(`    the units alone (the longest run's run_start to run_end): ${fmt(result.unitsSeconds, 2)} s = ${fmt(result.cases / result.unitsSeconds, 1)} cases/s`);
      } else {
        const result = reference(src);
        results.reference.push(result.cases / result.seconds);
        console.log(`  round ${round + 1}, reference (agentdojo ${PINNED}, python3, GroundTruthPipeline): ${result.cases} cases in ${fmt(result.seconds, 2)} s = ${fmt(result.cases / result.seconds, 1)} cases/s`);
      }
    }
  }
  const oursRate = median(results.ours);
  const unitsRate = median(results.units);
  if (SKIP_REFERENCE) console.log(`ours: ${fmt(oursRate, 1)} cases/s end to end, ${fmt(unitsRate, 1)} for the units alone (medians)`);
  else {
    const referenceRate = median(results.reference);
    console.log(`ours: ${fmt(oursRate, 1)} cases/s end to end (${fmt(oursRate / referenceRate, 2)}x the reference), ${fmt(unitsRate, 1)} cases/s for the units alone (${fmt(unitsRate / referenceRate, 2)}x); reference: ${fmt(referenceRate, 1)} cases/s (medians)`);
    console.log(`ratio ours/reference, end to end: ${fmt(oursRate / referenceRate, 2)}x`);
  }
  console.log(`load average now ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
} finally {
  if (work) rmSync(work, { recursive: true, force: true });
}
process.exit(0);
