#!/usr/bin/env node
// τ-bench fidelity (issue 27 item 2): every task's gold actions replayed through our shims (tau_retail,
// tau_airline) and through the reference implementation's own Python tools (bench/tau/reference_driver.py, run
// on a checkout you fetched), the final databases compared by hash (RFC 8785 JSON, null members dropped,
// SHA-256). Passes when 100% of the tasks end in identical databases and every gold action succeeds or is
// refused on both sides alike.
//
// Usage:
//   node bench/tau/fidelity.mjs [--src <tau2-bench checkout>/src | --mirror <git dir>] [--data <τ-bench data dir>]
//        [--domain retail|airline|telecom|all] [--split base] [--write-fixture] [--probes]
// <data dir> has the layout of the release's data/tau2/domains/ (see plugins/shims/tau/data.ts), default the data
// shipped in catalog/data/tau-bench/domains: retail/db.json, tasks.json, split_tasks.json; airline/ the same, or
// τ-bench v1's flights.json, reservations.json, users.json instead of db.json (any of them gzipped). Without
// --src, the reference's domain sources come from the git mirror (bench/tau/reference-src.mjs). --write-fixture
// records the reference's per-task hashes in plugins/shims/tau/fidelity.fixture.json, when ours equal them (what
// plugins/shims/tau/fidelity.test.ts checks on every CI run, without Python). --probes runs, instead of the tasks, call
// sequences of our own built from the database (bench/tau/probes.mjs) that reach every tool, its successes and
// refusals, and compares each call's result and refusal message too.
// Telecom (the agent's side, tau_telecom): each task starts from the database its initialization actions on the
// agent's side make, and only its gold actions whose requestor is the assistant are replayed (the user's act on
// their device); the reference reads the release's db.toml, ours the db.json the driver rendered from it. Every
// action's result is compared, and recorded in the fixture with the hashes (also the probes', under
// telecom_probes). Then both telecom worlds (dualControl below): the user's device too, every gold action of either
// requestor, the environment's sync, and the env assertions, against the reference's own TelecomEnvironment.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureBuilt, repoRoot, tauDataDir, importDist } from '../lib.mjs';
import { DEFAULT_MIRROR, referenceSources } from './reference-src.mjs';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}
const DATA = argument('data', join(repoRoot, 'catalog', 'data', 'tau-bench', 'domains'));
const SPLIT = argument('split', 'base');
const DOMAINS = (argument('domain', 'all') === 'all' ? ['retail', 'airline', 'telecom'] : [argument('domain')]);
const WRITE = process.argv.includes('--write-fixture');
const PROBES = process.argv.includes('--probes');

ensureBuilt();
const tau = await importDist('plugins/shims/tau/index.js');
const { replayGold } = await importDist('plugins/shims/tau/replay.js');
const { retailProbes, airlineProbes, telecomProbes } = await import('./probes.mjs');
const SHIMS = { retail: tau.tauRetailShim, airline: tau.tauAirlineShim, telecom: tau.tauTelecomShim };
const PROBES_OF = { retail: retailProbes, airline: airlineProbes, telecom: telecomProbes };

const data = tauDataDir(DATA);
const FIXTURE = join(repoRoot, 'plugins/shims/tau/fidelity.fixture.json');
const DUAL_FIXTURE = join(repoRoot, 'plugins/shims/tau/fidelity-telecom.fixture.json');
const fixture = existsSync(FIXTURE) ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : {};
const work = mkdtempSync(join(tmpdir(), 'tau-fidelity-'));
const sources = referenceSources(argument('src'), argument('mirror', DEFAULT_MIRROR));
const SRC = sources.src;
let failed = false;

/**
 * Telecom with dual control: each task's two worlds (the carrier's and the user's device) through our shims
 * (plugins/shims/tau/telecom-replay.ts) and through the reference's own environment (bench/tau/reference_telecom.py):
 * after the initialization actions, each gold action of either requestor (each followed by the environment's
 * sync), both worlds' hashes after them, and each env assertion's result. With --write-fixture, the reference's
 * record goes to plugins/shims/tau/fidelity-telecom.fixture.json (checked by fidelity.test.ts on every CI run).
 */
async function dualControl(db, tasks, ids) {
  const agentShim = tau.tauTelecomShim();
  const userShim = tau.tauTelecomUserShim();
  const agentDb = await agentShim.initialState(db, { config: {}, now: '' });
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const started = performance.now();
  const ours = {};
  for (const id of ids) ours[id] = await tau.replayTelecomTask(agentShim, userShim, agentDb, byId.get(id));
  const oursMs = performance.now() - started;
  const tasksFile = join(work, 'telecom-dual-tasks.json');
  const idsFile = join(work, 'telecom-dual-ids.json');
  writeFileSync(tasksFile, JSON.stringify(tasks));
  writeFileSync(idsFile, JSON.stringify(ids));
  const pythonStarted = performance.now();
  const run = spawnSync('python3', [join(repoRoot, 'bench/tau/reference_telecom.py'), '--src', resolve(SRC), '--db', join(data.dir, 'telecom', 'db.toml'), '--user-db', join(data.dir, 'telecom', 'user_db.toml'), '--tasks', tasksFile, '--ids', idsFile], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const pythonMs = performance.now() - pythonStarted;
  if (run.status !== 0) throw new Error(`the reference's telecom environment failed:\n${run.stderr}`);
  const reference = JSON.parse(run.stdout);
  const differences = [];
  let actions = 0;
  let assertions = 0;
  for (const id of ids) {
    const [mine, theirs] = [ours[id], reference.tasks[id]];
    for (const stage of ['init', 'live']) for (const side of ['agent', 'user']) if (mine[stage][side] !== theirs[stage][side]) differences.push(`${id}: ${side} world after ${stage === 'init' ? 'initialization' : 'the gold actions'}`);
    mine.actions.forEach((outcome, index) => {
      actions++;
      if (outcome !== theirs.actions[index]) differences.push(`${id} action ${index}: ours ${outcome.slice(0, 200)}, reference ${theirs.actions[index].slice(0, 200)}`);
    });
    assertions += theirs.assertions.length;
    if (JSON.stringify(mine.assertions) !== JSON.stringify(theirs.assertions)) differences.push(`${id}: assertions ours ${JSON.stringify(mine.assertions)}, reference ${JSON.stringify(theirs.assertions)}`);
  }
  const identical = ids.filter((id) => !differences.some((line) => line.startsWith(`${id}`))).length;
  const unsynced = ids.filter((id) => reference.tasks[id].gold_env.user !== reference.tasks[id].live.user || reference.tasks[id].gold_env.agent !== reference.tasks[id].live.agent).length;
  console.log(`telecom, dual control (${SPLIT} split, ${ids.length} tasks): both worlds identical after initialization and after the gold actions, every action's answer and every env assertion the same, for ${identical}/${ids.length} (${actions} actions, ${assertions} assertions; reference: ${ids.filter((id) => reference.tasks[id].assertions.every(Boolean)).length}/${ids.length} tasks' assertions all met by their gold)`);
  console.log(`  the reference's own gold environment (its evaluator replays the gold without syncing between actions) ends elsewhere than the live replay for ${unsynced}/${ids.length} tasks: harmless there, as no base task is scored on DB`);
  console.log(`  replay time: ours ${oursMs.toFixed(0)} ms, reference (Python, incl. start-up) ${pythonMs.toFixed(0)} ms`);
  for (const line of differences.slice(0, 40)) console.log(`  ${line}`);
  if (differences.length === 0 && WRITE) {
    const record = Object.fromEntries(ids.map((id) => [id, { init: { agent: reference.tasks[id].init.agent, user: reference.tasks[id].init.user }, actions: reference.tasks[id].actions, live: reference.tasks[id].live, assertions: reference.tasks[id].assertions, gold_env: reference.tasks[id].gold_env }]));
    const source = 'tau2-bench a2c0247: domains/telecom/environment.py (TelecomEnvironment and its sync_tools), tools.py, user_tools.py, user_data_model.py, db.toml and user_db.toml, run by bench/tau/reference_telecom.py; the base tasks regenerated by its create_tasks.py (bench/tau/telecom-tasks.mjs). Per task: both worlds\' hashes after its initialization actions (init) and after its gold actions of either requestor, each followed by the sync (live); each action\'s outcome (ok and the canonical JSON of what the caller is shown, or error: and the message); each env assertion\'s result; and the hashes of the evaluator\'s gold environment, which does not sync between gold actions (gold_env)';
    writeFileSync(DUAL_FIXTURE, `${JSON.stringify({ source, split: SPLIT, initial: reference.initial, tasks: record }, null, 1)}\n`);
    console.log(`wrote ${DUAL_FIXTURE}`);
  }
  return differences.length === 0;
}

try {
  for (const domain of DOMAINS) {
    const load = tau.tauDbLoader(data);
    const db = await load(domain);
    const shim = SHIMS[domain](load);
    const telecom = domain === 'telecom';
    const RESULTS = PROBES || telecom;
    // The driver reads plain JSON: the tasks (gzipped in the shipped data) are written out for it.
    const tasksFile = join(work, `${domain}-${PROBES ? 'probes' : 'tasks'}.json`);
    const probes = PROBES ? PROBES_OF[domain](db) : undefined;
    const tasks = probes ?? await tau.readTauJson(data, domain, 'tasks.json');
    writeFileSync(tasksFile, JSON.stringify(tasks));
    const ids = probes ? probes.map((entry) => entry.id) : (await tau.readTauJson(data, domain, 'split_tasks.json'))[SPLIT];
    const byId = new Map(tasks.map((task) => [task.id, task]));

    const started = performance.now();
    const ours = {};
    for (const id of ids) {
      const task = byId.get(id);
      const start = telecom ? tau.initializeTelecomDb(db, task.initial_state?.initialization_actions ?? []) : db;
      const gold = (task.evaluation_criteria?.actions ?? []).filter((action) => !telecom || (action.requestor ?? 'assistant') === 'assistant');
      const replay = await replayGold(shim, start, gold, { results: RESULTS });
      ours[id] = { hash: tau.dbHash(replay.db), actions: replay.actions };
    }
    const oursMs = performance.now() - started;

    const dbFile = telecom ? join(data.dir, 'telecom', 'db.toml') : join(work, `${domain}-db.json`);
    const idsFile = join(work, `${domain}-ids.json`);
    if (!telecom) writeFileSync(dbFile, JSON.stringify(db));
    writeFileSync(idsFile, JSON.stringify(ids));
    const pythonStarted = performance.now();
    const run = spawnSync('python3', [join(repoRoot, 'bench/tau/reference_driver.py'), '--src', resolve(SRC), '--db', dbFile, '--tasks', tasksFile, '--ids', idsFile, '--domain', domain, ...(RESULTS ? ['--results'] : [])], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const pythonMs = performance.now() - pythonStarted;
    if (run.status !== 0) throw new Error(`the reference driver failed:\n${run.stderr}`);
    const reference = JSON.parse(run.stdout);

    const initial = tau.dbHash(db);
    const mismatched = [];
    const disagreements = [];
    let refusedBoth = 0;
    let schemaRefusals = 0;
    for (const id of ids) {
      if (ours[id].hash !== reference.tasks[id].hash) mismatched.push(id);
      ours[id].actions.forEach((outcome, index) => {
        const theirs = reference.tasks[id].actions[index];
        if (outcome.startsWith('ok') || theirs.startsWith('ok')) {
          if (outcome !== theirs) disagreements.push(`${id} #${index}: ours ${outcome.slice(0, 300)}, reference ${theirs.slice(0, 300)}`);
          return;
        }
        refusedBoth++;
        // Our schema refuses malformed arguments before the tool runs (Python raises a TypeError or pydantic's
        // ValidationError there, in other words), and the world refuses a name that is no tool of the shim's
        // (τ-bench: "Tool '…' not found."); a refusal by the tool itself must say what τ-bench says.
        if (outcome.startsWith('invalid: /arguments') || outcome.startsWith('invalid: no action ')) schemaRefusals++;
        else if (RESULTS && outcome.slice(outcome.indexOf(': ') + 2) !== theirs.slice('error: '.length)) disagreements.push(`${id} #${index}: ours ${outcome}, reference ${theirs}`);
      });
    }
    const identical = ids.length - mismatched.length;
    console.log(`${domain} (${PROBES ? `${ids.length} probes` : `${SPLIT} split, ${ids.length} tasks`}): initial database ${initial === reference.initial ? 'identical' : 'DIFFERENT'}; final databases identical for ${identical}/${ids.length} (${((100 * identical) / ids.length).toFixed(1)}%); ${PROBES ? 'calls' : 'gold actions'} refused by both: ${refusedBoth} (${schemaRefusals} by our parameter schema or list of tools), ${PROBES ? 'result or message' : 'outcome'} disagreements: ${disagreements.length}${PROBES ? ` over ${Object.values(ours).reduce((sum, entry) => sum + entry.actions.length, 0)} calls` : ''}`);
    console.log(`  replay time: ours ${oursMs.toFixed(0)} ms, reference (Python, incl. start-up and database validation per task) ${pythonMs.toFixed(0)} ms`);
    for (const id of mismatched) console.log(`  task ${id}: ours ${ours[id].hash}, reference ${reference.tasks[id].hash}`);
    for (const line of disagreements) console.log(`  ${line}`);
    if (!PROBES) for (const id of ids) for (const outcome of ours[id].actions) if (!outcome.startsWith('ok')) console.log(`  task ${id}: gold action refused (both sides): ${outcome}`);
    if (initial !== reference.initial || mismatched.length > 0 || disagreements.length > 0) failed = true;
    if (telecom && !PROBES && !(await dualControl(db, tasks, ids))) failed = true;
    else if (WRITE && telecom) {
      // The reference's own hashes and outcomes (ours are the same, or we would not be here).
      const recorded = Object.fromEntries(ids.map((id) => [id, { hash: reference.tasks[id].hash, actions: reference.tasks[id].actions }]));
      if (PROBES) fixture.telecom_probes = recorded;
      else fixture.telecom = { source: 'tools.py, data_model.py and db.toml of tau2-bench a2c0247 (data/tau2/domains/telecom); the base tasks regenerated by its create_tasks.py (bench/tau/telecom-tasks.mjs). Per task: its initialization actions on the agent\'s side, then its gold actions whose requestor is the assistant; each action\'s outcome (ok and the canonical JSON of what the agent is shown, or error: and the message)', split: SPLIT, initial_db_sha256: reference.initial, tasks: recorded };
    } else if (WRITE && !PROBES) {
      // The reference's own hashes (ours are the same, or we would not be here).
      fixture[domain] = { ...(fixture[domain]?.source ? { source: fixture[domain].source } : {}), split: SPLIT, initial_db_sha256: reference.initial, tasks: Object.fromEntries(ids.map((id) => [id, reference.tasks[id].hash])) };
    }
  }
  if (WRITE && !failed) {
    writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
    console.log(`wrote ${FIXTURE}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
  sources.cleanup();
}
process.exit(failed ? 1 : 0);
