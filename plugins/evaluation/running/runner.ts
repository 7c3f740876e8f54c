/**
 * Runs one evaluation task from its handoff token: verify the token and the trace it continues, rebuild the
 * run's state from that trace, run the remaining units (agent call, tool calls, handoffs, metrics), checkpoint
 * with a new token after each step, and finish. Nothing is held only in memory between checkpoints: a crash
 * loses at most the step in flight, whose partial trace is cut off when the run resumes.
 */
import { assertDigest, HandoffError, signHandoff, verifyHandoff, type HandoffState } from './handoff.ts';
import { sha3Hex } from '../../../core/domain/hash.ts';
import { keys, readTask, SIDECARS, type TaskRecord } from '../../../core/domain/runs.ts';
import { createTraceWriter, parseTrace, runningSha3 } from '../../../core/domain/trace.ts';
import { FINAL_STATUSES, StopRequest, type Engine, type FreshTask } from '../engine.ts';
import { positionAt, unitCount, type RunPlan } from '../submission/plan.ts';
import { createRunState } from './run-state.ts';
import type { RunContext } from './run-context.ts';
import { runUnit } from '../units/unit.ts';
import { runConcurrency, runUnitsConcurrently } from './concurrent-units.ts';
import { finishRun, abandonRun, cancelRun, endWithoutResults } from './finish.ts';
import { releaseTask } from '../submission/owners.ts';
import { actingPrincipal } from '../../../core/delegation.ts';
import { readEvidence } from '../../../core/domain/packed-evidence.ts';

/** Checkpoint batching for idempotent in-process adapters (scripted, replay): redoing them costs nothing. */
const BATCH_UNITS = 64;
const BATCH_MS = 250;

/** Signs the state after `next` units, stores it with the task and sees whether a cancellation was asked for. */
export async function checkpoint(run: RunContext, next: number, phase: HandoffState['phase']): Promise<void> {
  const { engine, task, writer } = run;
  await writer.flush();
  const state: HandoffState = {
    run_id: task.run_id,
    task_id: task.task_id,
    next,
    total: run.total,
    step: run.step++,
    phase,
    position: positionAt(run.plan, next),
    trace: { ...writer.cursor(), digest: writer.digest() },
    scenario_digest: run.scenarioDigest,
  };
  task.handoff = await signHandoff(state, engine.handoffKey, { now: engine.services.now(), ttlSeconds: engine.handoffTtlSeconds });
  task.progress = { done: next, total: run.total };
  // After the `running` mark, never beside it: the record written last must be this one, with its token.
  await run.marking;
  await engine.services.store.setJson(keys.task(task.task_id), task);
  if (phase === 'running' && (await engine.services.store.has(keys.cancelRequest(task.task_id)))) throw new StopRequest('cancel');
}

/** Reads the stored trace, checks the prefix the token covers and cuts off anything written after it. */
async function verifiedTrace(engine: Engine, state: HandoffState): Promise<Uint8Array> {
  const store = engine.services.store;
  const key = keys.trace(state.run_id);
  const stored = (await store.getBytes(key)) ?? new Uint8Array();
  if (stored.length < state.trace.bytes) throw new HandoffError('digest', 'the stored trace is shorter than the handoff token says');
  const prefix = stored.subarray(0, state.trace.bytes);
  assertDigest('trace', state.trace.digest, sha3Hex(prefix, engine.sha3));
  // Events of the step in flight when the last instance stopped: that step runs again.
  if (stored.length > prefix.length) await store.setBytes(key, prefix);
  return prefix;
}

/** The state and plan from storage, trusted only once the token and the plan's digest are verified. */
async function verifiedStart(engine: Engine, task: TaskRecord): Promise<{ state: HandoffState; plan: RunPlan }> {
  const { services } = engine;
  const state = await verifyHandoff(task.handoff ?? '', engine.handoffKey, { now: services.now(), runId: task.run_id, taskId: task.task_id });
  const planBytes = await readEvidence(services.store, task.run_id, SIDECARS.scenario);
  if (!planBytes) throw new HandoffError('digest', 'the run plan (scenario.json) is missing');
  assertDigest('run plan (scenario.json)', state.scenario_digest, sha3Hex(planBytes, engine.sha3));
  return { state, plan: JSON.parse(new TextDecoder().decode(planBytes)) as RunPlan };
}

async function prepare(engine: Engine, task: TaskRecord, signal: AbortSignal, fresh?: FreshTask): Promise<RunContext> {
  const { services } = engine;
  const { state, plan } = fresh ?? (await verifiedStart(engine, task));
  const adapter = services.agents.get(plan.scenario.agent.adapter);
  if (!adapter) throw new HandoffError('claims', `agent adapter "${plan.scenario.agent.adapter}" is no longer loaded`);
  const prefix = fresh ? new Uint8Array() : await verifiedTrace(engine, state);
  const digest = runningSha3(services.capabilities.nativeSha3);
  digest.update(prefix);
  const runState = createRunState();
  for (const event of parseTrace(prefix)) runState.observe(event);
  const writer = createTraceWriter({
    runId: task.run_id,
    append: (bytes) => services.store.append(keys.trace(task.run_id), bytes),
    now: services.now,
    digest,
    start: { seq: state.trace.seq, bytes: state.trace.bytes },
  });
  return { engine, task, plan, adapter, state: runState, writer, signal, scenarioDigest: state.scenario_digest, total: unitCount(plan), step: state.step + 1, from: state.next, phase: state.phase };
}

/**
 * Why the task's submitter may no longer have it run, or `null` (issue 25 item 3): asked each time a task starts
 * or resumes, since it may have waited in a queue or across a restart while their key was revoked or their role
 * changed. Tasks queued by versions that did not store the submitter run as before.
 */
async function submitterRefusal(engine: Engine, task: TaskRecord): Promise<string | null> {
  if (!task.submitter) return null;
  const acting = await actingPrincipal(engine.services.auth, task.submitter, task.submitted_by, 'evaluations:launch', task.created_at);
  return 'refused' in acting ? acting.refused : null;
}

/** Runs (or resumes) one task to its end. Rejects only on storage failures. */
export async function runTask(engine: Engine, taskId: string, signal: AbortSignal): Promise<void> {
  const { services } = engine;
  const fresh = engine.fresh.get(taskId);
  engine.fresh.delete(taskId);
  const task = fresh?.task ?? (await readTask(services.store, taskId));
  if (!task || FINAL_STATUSES.has(task.status)) {
    await releaseTask(services.store, taskId, task);
    return;
  }
  let run: RunContext | undefined;
  try {
    // A request from another instance for a task accepted here is seen at its checkpoints; a run too short to
    // reach one completes (the request was answered 202, "requested"). One read less per run.
    if (!fresh && (await services.store.has(keys.cancelRequest(taskId)))) throw new StopRequest('cancel');
    const refusal = await submitterRefusal(engine, task);
    if (refusal) {
      services.logger.warn('a task\'s submitter may no longer launch evaluations; it is not run', { task_id: taskId, reason: refusal });
      return await endWithoutResults(engine, task, 'cancelled', { code: 'forbidden', message: `not run: ${refusal}` });
    }
    try {
      run = await prepare(engine, task, signal, fresh);
    } catch (error) {
      if (error instanceof HandoffError) return abandonRun(engine, task, error);
      throw error;
    }
    let marker: ReturnType<typeof setTimeout> | undefined;
    if (task.status !== 'running') {
      task.status = 'running';
      task.started_at = new Date(services.now()).toISOString();
      // An idempotent run that ends within BATCH_MS is never shown `running` (one write less per short run);
      // one whose first unit takes longer is, from BATCH_MS on, whether or not a checkpoint came yet.
      if (!run.adapter.idempotent) await services.store.setJson(keys.task(taskId), task);
      else marker = markRunningLater(run, run.step);
    }
    try {
      if (run.phase === 'running') await execute(run);
    } finally {
      clearTimeout(marker);
      await run.marking;
    }
    return await finishRun(run);
  } catch (error) {
    if (error instanceof StopRequest || signal.aborted) {
      const reason = signal.aborted ? signal.reason : error;
      if (reason instanceof StopRequest && reason.kind === 'shutdown') return;
      return cancelRun(engine, task, run);
    }
    return endOnUnexpectedError(engine, task, run, error);
  }
}

/**
 * Writes the task record as `running` after BATCH_MS unless a checkpoint wrote it by then (its step moved on).
 * The write is `run.marking`: checkpoints and the finish wait for it, so it never lands after them.
 */
function markRunningLater(run: RunContext, step: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(() => {
    if (run.step !== step || run.signal.aborted) return;
    run.marking = run.engine.services.store.setJson(keys.task(run.task.task_id), { ...run.task }).catch((error: unknown) => {
      run.engine.services.logger.warn('could not mark a run running', { task_id: run.task.task_id, error: String((error as Error)?.message ?? error) });
    });
  }, BATCH_MS);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/**
 * Ends a run that met an unexpected error (issue 32 item 6): never left `running`. The error is recorded in the
 * trace and the run finished as usual when it can be (its verdict is then `error` by the `run_error` gate, and it
 * is certified); when finishing fails too, the run and task records end `failed` with the reason. Rejects only
 * when even that cannot be written (storage failures), as before.
 */
async function endOnUnexpectedError(engine: Engine, task: TaskRecord, run: RunContext | undefined, error: unknown): Promise<void> {
  const name = error instanceof Error ? error.name : 'Error';
  const detail = engine.services.use('redactor').text(error instanceof Error ? error.message : String(error)).slice(0, 200);
  const message = `the harness stopped on an unexpected error (${name}: ${detail})`;
  engine.services.logger.error('a run met an unexpected error; it ends with status error', { task_id: task.task_id, run_id: task.run_id, error: name });
  if (run && run.phase === 'running') {
    try {
      run.writer.emit('error', { data: { code: 'internal', failure_code: 'INFRA.ENGINE_ERROR', message } });
      run.state.observe(run.writer.last()!);
      run.writer.emit('run_end', { data: { status: 'failed', units: run.total, error: { code: 'internal', message } } });
      run.state.observe(run.writer.last()!);
      run.phase = 'finishing';
      await run.writer.flush();
      return await finishRun(run);
    } catch {
      // Finishing met the same error (or another): the records below say why, without results.
    }
  }
  await endWithoutResults(engine, task, 'failed', { code: 'internal', message });
}

async function execute(run: RunContext): Promise<void> {
  const { writer, state, plan, task, adapter } = run;
  if (writer.cursor().seq === 0 && writer.buffered() === 0) {
    writer.emit('run_start', {
      data: { task_id: task.task_id, scenario_id: plan.scenario.id, adapter: plan.scenario.agent.adapter, ...(plan.agent ? { agent: plan.agent } : {}), units: run.total, variants: plan.variants.map((variant) => variant.variant_id), seed: plan.seed },
    });
    state.observe(writer.last()!);
  }
  const startStep = run.step;
  let sinceCheckpoint = 0;
  let lastCheckpoint = run.engine.services.now();
  let done = run.from;
  /** After each unit: count it done and checkpoint when one is due. */
  const afterUnit = async (next: number) => {
    done = next;
    sinceCheckpoint++;
    const due = !adapter.idempotent || sinceCheckpoint >= BATCH_UNITS || run.engine.services.now() - lastCheckpoint >= BATCH_MS;
    if (due && next < run.total) {
      await checkpoint(run, next, 'running');
      sinceCheckpoint = 0;
      lastCheckpoint = run.engine.services.now();
    }
  };
  const limit = runConcurrency(plan, run.engine.services.config.runConcurrency);
  if (limit > 1) await runUnitsConcurrently(run, run.from, limit, afterUnit);
  else {
    for (let index = run.from; index < run.total; index++) {
      if (run.signal.aborted) throw run.signal.reason;
      if (!(await runUnit(run, index))) break;
      await afterUnit(index + 1);
    }
  }
  const error = state.error();
  writer.emit('run_end', { data: { status: error ? 'failed' : 'succeeded', units: run.total, ...(error ? { error } : {}) } });
  state.observe(writer.last()!);
  // Without a checkpoint since it started, an idempotent run that crashes now simply runs again from its
  // token, so the `finishing` checkpoint (one signature and one write) is only needed for the others.
  if (!adapter.idempotent || run.step > startStep) await checkpoint(run, done, 'finishing');
  else {
    await writer.flush();
    task.progress = { done, total: run.total };
  }
}
