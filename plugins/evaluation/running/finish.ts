/**
 * How a run ends (integration.md item 1). Completed or failed: the sidecars, then `await hooks.emit('run.finished')`
 * with the final run record (certification signs here), and only then `run.json`, which ends the task too (its
 * `task_end`), so a client that sees the final status finds the certificate. Cancelled: no sidecars, no certificate.
 */
import type { HandoffError } from './handoff.ts';
import { keys, OPTIONAL_SIDECARS, SIDECARS, taskEnding, type EvidenceDigests, type RunRecord, type RunStatus, type StoredRunRecord, type TaskRecord } from '../../../core/domain/runs.ts';
import type { Store } from '../../../core/storage.ts';
import { scoreDimensions } from '../../../core/domain/scoring.ts';
import type { Engine } from '../engine.ts';
import type { RunContext } from './run-context.ts';
import { releaseTask } from '../submission/owners.ts';
import { worldSidecar } from '../worlds/world.ts';
import { storeWorld } from './pack-evidence.ts';
import { shimExecutionOf } from '../worlds/shim-execution.ts';
import { complianceReason, judgeRun } from '../scoring/verdict.ts';
import type { Verdict } from '../../../core/domain/verdict.ts';
import { agentConfigHash, type RunAgent } from '../../../core/domain/agent-target.ts';
import { scenarioContentHash, type ScenarioIdentity } from '../../../core/domain/scenario-identity.ts';
import type { RunPlan } from '../submission/plan.ts';
import { attackNumbers } from '../attacks/attack-numbers.ts';
import { BUNDLE_FILE, packBundle } from '../../../core/domain/evidence-bundle.ts';
import { baseRunRecord, readRun } from '../../../core/domain/run-record.ts';

/** The scenario's identity as the plan records it (a plan stored before identities: its hash, no origin). */
function identityOf(plan: RunPlan, engine: Engine): ScenarioIdentity | Omit<ScenarioIdentity, 'origin'> {
  return { id: plan.scenario.id, content_hash: plan.scenario_hash ?? scenarioContentHash(plan.scenario, engine.sha3), ...(plan.origin ? { origin: plan.origin } : {}) };
}

const encoder = new TextEncoder();

/** The most tasks a run record lists in `verdict.tasks`; `scores.json` lists them all. */
const RECORD_TASKS = 100;

/**
 * The verdict as the run record keeps it: the count of tasks by status and the tasks that did not pass every
 * attempt (at most RECORD_TASKS), so a run of thousands of clean tasks keeps a small record; `scores.json` has
 * every task.
 */
function verdictInRecord(verdict: Verdict): NonNullable<RunRecord['verdict']> {
  const counts: { pass: number; fail: number; error: number; unmeasured?: number } = { pass: 0, fail: 0, error: 0 };
  // `unmeasured` only when a task measured nothing: most runs' records keep the three counts they always had.
  for (const task of verdict.tasks) counts[task.status] = (counts[task.status] ?? 0) + 1;
  const notClean = verdict.tasks.filter((task) => task.status !== 'pass' || task.passed < task.attempts);
  return { counts, tasks: notClean.slice(0, RECORD_TASKS), ...(notClean.length > RECORD_TASKS ? { more_tasks: notClean.length - RECORD_TASKS } : {}), gate_failures: verdict.gate_failures };
}

/**
 * Ends the run and its task in one atomic write (issue 36): the final run record with the task's end
 * (`task_end`), which `readTask` lays over the task's file (left as its last checkpoint wrote it). A client that
 * sees the task end finds the run ended, and a crash leaves both ended or neither (the run then resumes, or is
 * found ended and released, from the active tasks' journal).
 */
async function finalRecords(store: Store, task: TaskRecord, record: RunRecord): Promise<void> {
  const stored: StoredRunRecord = { ...record, task_end: taskEnding(task) };
  await store.setJson(keys.run(task.run_id), stored);
}

/** `scores.json`: the scores of the whole run, every unit's, and with attacks every attack case. */
function scoresSidecar(run: RunContext, scored: ReturnType<typeof scoreDimensions>, judged: ReturnType<typeof judgeRun>, robustness: RunRecord['robustness'], attacked: ReturnType<typeof attackNumbers>) {
  const { state, task } = run;
  const { compliance, verdict, trials } = judged;
  return {
    run_id: task.run_id,
    dimensions: scored.dimensions,
    index: scored.index,
    compliance,
    floor_applied: scored.floor_applied,
    measured: scored.measured,
    per_metric: state.perMetric(),
    per_task: state.perTask().map(({ task_id, variant, trial, scores: taskScores, passed, latency_ms }) => ({ task_id, ...(variant ? { variant } : {}), ...(trial !== undefined ? { trial } : {}), scores: taskScores, passed, latency_ms })),
    robustness,
    verdict: { tasks: verdict.tasks, gate_failures: verdict.gate_failures },
    ...(trials ? { trials } : {}),
    ...(attacked ? { attacks: { ...attacked.summary, cases: attacked.cases } } : {}),
  };
}

/**
 * What certification need not read and hash again (issue 36): the plan's digest, verified when the run started
 * (or computed from the bytes stored at submission), and the trace's, kept as it was appended.
 */
function evidenceDigests(run: RunContext): EvidenceDigests {
  return { files: { [SIDECARS.scenario]: run.scenarioDigest }, trace: { sha3: run.writer.digest(), bytes: run.writer.cursor().bytes } };
}

/** Writes results and sidecars, lets certification run, then sets the final status. */
export async function finishRun(run: RunContext): Promise<void> {
  const { engine, task, plan, state } = run;
  const { store, hooks } = engine.services;
  const runError = state.error();
  const status: RunStatus = runError ? 'failed' : 'succeeded';
  const scored = scoreDimensions(state.dimensions(), { completed: !runError });
  const failures = state.failures();
  // The index is the spec's; the gates of the plan's verdict policy decide the status (core/domain/verdict.ts).
  const judged = judgeRun(plan, state, scored);
  const { compliance, verdict, trials, error } = judged;
  const tiers = state.tiers();
  // Plans stored before runs recorded their agent: the spec as run, unnamed.
  const agent = plan.agent ?? { adapter: plan.scenario.agent.adapter, config_hash: agentConfigHash(plan.scenario.agent, engine.sha3) };
  const startedAt = state.startedAt() ?? task.started_at;
  const finishedAt = state.finishedAt() ?? new Date(engine.services.now()).toISOString();
  const robustness = state.robustness(plan.variants.filter((variant) => !variant.attack).length);
  // Priced with the table configured now: prices are configuration, the tokens are the trace's.
  const usage = state.usage(engine.prices);
  const attacked = attackNumbers(plan, state.perTask());
  const done = task.progress.done;
  const record: RunRecord = {
    ...baseRunRecord(task, plan.scenario, run.total, agent, identityOf(plan, engine)),
    status,
    started_at: startedAt,
    finished_at: finishedAt,
    dimensions: scored.dimensions,
    index: scored.index,
    compliance,
    failures,
    robustness,
    tasks: { total: run.total, done },
    verdict: verdictInRecord(verdict),
    ...(trials ? { trials } : {}),
    ...(attacked ? { attacks: attacked.summary } : {}),
    ...(tiers ? { tiers } : {}),
    usage,
    ...(error ? { error } : {}),
  };
  const scores = scoresSidecar(run, scored, judged, robustness, attacked);
  const summary = {
    run_id: task.run_id,
    task_id: task.task_id,
    scenario_id: plan.scenario.id,
    agent,
    status,
    compliance,
    started_at: startedAt,
    finished_at: finishedAt,
    tasks: { total: run.total, done, failures: failures.length },
    agent_signatures: state.signatures(),
    robustness,
    // The certificate signs the attack numbers from here.
    ...(attacked ? { attacks: attacked.summary } : {}),
    // The certificate says from here how many answers came from the response cache.
    usage,
    ...(error ? { error } : {}),
  };
  // Runs with a world keep its initial and final states beside the trace, in the evidence ledger.
  const world = plan.scenario.enabled_shims?.length ? await worldSidecar(engine.services.shims, plan.scenario, task.created_at, state.worldUnits(), task.progress.done, shimExecutionOf(run)) : undefined;
  // Encoded once: stored, then handed to certification, which hashes these bytes instead of reading them back.
  const evidence = {
    [SIDECARS.scores]: encoder.encode(JSON.stringify(scores)),
    [SIDECARS.failures]: encoder.encode(JSON.stringify(failures)),
    [SIDECARS.summary]: encoder.encode(JSON.stringify(summary)),
  };
  // One record of the three files' bytes (core/domain/evidence-bundle.ts): one fsync'd write, not three (issue 36).
  await Promise.all([
    ...(world ? [storeWorld(store, task.run_id, OPTIONAL_SIDECARS.world, world, engine.sha3, task.submitted_by)] : []),
    store.setBytes(keys.sidecar(task.run_id, BUNDLE_FILE), packBundle(evidence)),
  ]);
  // The record goes to the handlers, not through a `run.json` read back (issue 36). Until the final records
  // below there is no `run.json`: readers get the submitted record rebuilt (core/domain/run-record.ts) with the
  // task's live status (views.ts `liveRun`); a crash before them resumes the run from its task's token.
  await hooks.emit('run.finished', { run_id: task.run_id, record, evidence, digests: evidenceDigests(run) });
  Object.assign(task, { status, started_at: task.started_at ?? startedAt, finished_at: finishedAt, ...(runError ? { error: runError } : {}) });
  delete task.handoff;
  await finalRecords(store, task, record);
  await releaseTask(store, task.task_id, task);
}

/** Ends a task that produced no results (cancelled, refused, abandoned): run and task records, markers. */
export async function endWithoutResults(engine: Engine, task: TaskRecord, status: RunStatus, error?: { code: string; message: string }): Promise<void> {
  const { store } = engine.services;
  const finishedAt = new Date(engine.services.now()).toISOString();
  const stored = await readRun(store, task.run_id);
  const record: RunRecord = {
    ...(stored ?? baseRunRecord(task, { id: 'unknown', title: 'unknown' }, task.progress.total)),
    status,
    started_at: stored?.started_at ?? task.started_at,
    finished_at: finishedAt,
    tasks: { total: task.progress.total, done: task.progress.done },
    ...(error ? { error, compliance: { status: 'error' as const, score: 0, policy_ref: stored?.compliance?.policy_ref ?? 'unknown', reason: complianceReason(error) } } : {}),
  };
  Object.assign(task, { status, finished_at: finishedAt, ...(error ? { error } : {}) });
  delete task.handoff;
  await finalRecords(store, task, record);
  await Promise.all([releaseTask(store, task.task_id, task), store.remove(keys.cancelRequest(task.task_id))]);
}

/** Ends a cancelled task: the trace gets its `run_end`, the run and task become `cancelled`. */
export async function cancelRun(engine: Engine, task: TaskRecord, run?: RunContext): Promise<void> {
  if (run && run.writer.cursor().seq + run.writer.buffered() > 0) {
    run.writer.emit('run_end', { data: { status: 'cancelled', units: run.total, done: task.progress.done } });
    await run.writer.flush();
  }
  await endWithoutResults(engine, task, 'cancelled');
}

/** Ends a task whose handoff token or stored state failed verification: it is never trusted, never certified. */
export async function abandonRun(engine: Engine, task: TaskRecord, error: HandoffError): Promise<void> {
  engine.services.logger.warn('refused a handoff token; the run is marked failed', { task_id: task.task_id, run_id: task.run_id, reason: error.reason });
  await endWithoutResults(engine, task, 'failed', { code: 'handoff_invalid', message: error.message });
}
