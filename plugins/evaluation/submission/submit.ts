/**
 * `POST /api/evaluate`: resolve the scenario (`path` through the jail, inline `scenario`, or catalog
 * `scenario_id` — exactly one), apply the agent override, refuse what cannot run (unknown adapter or metric,
 * bad options, unknown mutator) with 4xx before anything is queued, build the variants, then persist the
 * plan, the run, the task with its first handoff token, and queue it.
 */
import { Problem, type FieldError } from '../../../core/problems.ts';
import { normalizeScenario } from '../../../core/domain/scenario-load.ts';
import { loadScenarioFile } from '../../../core/scenario-file.ts';
import { agentCheckContext, variablesUsed } from '../../../core/guards/agent-environment.ts';
import { check, describeErrors } from '../../../core/validate.ts';
import { mutateScenario, normalizeTypes, DEFAULT_SEED } from '../../../core/domain/mutation.ts';
import { sha3Hex } from '../../../core/domain/hash.ts';
import { signHandoff, type HandoffState } from '../running/handoff.ts';
import { keys, SIDECARS, type TaskRecord } from '../../../core/domain/runs.ts';
import type { AgentSpec, AttackRequest, Scenario } from '../../../core/domain/scenario.ts';
import { attackCaseCount, buildAttackCases } from '../attacks/attack-cases.ts';
import { FRESH_LIMIT, type Engine } from '../engine.ts';
import { positionAt, unitCount, type PlannedVariant, type RunPlan } from './plan.ts';
import { checkQueueQuota, reserveTask, type Reservation } from './owners.ts';
import { worldRefusals } from '../worlds/world.ts';
import { checkGoldReplay } from '../worlds/gold-replay-limit.ts';
import { principalGroup } from '../../../core/capabilities.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';
import { resolveShimConfigs, type NamedShimConfig } from '../../../core/domain/shim-configs.ts';
import { chooseAgent, type AgentChoice } from './agent-choice.ts';
import type { Reserved, RunIds } from './idempotency.ts';
import { resolvePolicy, type VerdictPolicy, type VerdictPolicyInput } from '../../../core/domain/verdict-policy.ts';
import { assertAboveFloor, floorDefaults, RELAX_PERMISSION } from '../../../core/domain/policy-strength.ts';
import { permissionCheck } from '../../../core/permissions.ts';
import { withImpliedMetrics } from '../../../core/domain/implied-metrics.ts';
import type { Principal } from '../../../core/auth-manager.ts';
import { storedCreator } from '../../../core/delegation.ts';
import { storePlan } from '../running/pack-evidence.ts';
import { activeTasks } from './active-tasks.ts';
import { checkInlineScenarioId, memoizedContentHash, type ScenarioIdentity, type ScenarioOrigin } from '../../../core/domain/scenario-identity.ts';

export interface EvaluateBody {
  path?: string;
  scenario?: Record<string, unknown>;
  scenario_id?: string;
  seed?: number;
  mutations?: Array<{ type: string | string[]; count?: number; seed?: number; options?: Record<string, unknown> }>;
  /** Attacks on the scenario's injection vectors, instead of the scenario's `attacks` (plugins/evaluation/attacks). */
  attacks?: AttackRequest[];
  /** A registry name or an inline spec; overrides the scenario's agent. */
  agent?: string | AgentSpec;
  /** Answer from the response cache where an identical call was answered before, and keep new answers there. */
  cache?: boolean;
  /** Fields of the verdict policy that override the scenario's for this run. */
  verdict?: VerdictPolicyInput;
}

/** The most units (tasks × (variants + trials)) one run may have. */
export const MAX_UNITS = 100_000;
const EMPTY_SHA3 = 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a';
const encoder = new TextEncoder();

/** The scenario a body names, and where it came from (core/domain/scenario-identity.ts). */
async function resolveScenario(engine: Engine, body: EvaluateBody): Promise<{ scenario: Scenario; origin: ScenarioOrigin }> {
  const given = (['path', 'scenario', 'scenario_id'] as const).filter((field) => body[field] !== undefined);
  if (given.length !== 1) {
    const message = given.length === 0 ? 'one of path, scenario or scenario_id is required' : `give exactly one of path, scenario or scenario_id, not ${given.join(' and ')}`;
    throw new Problem('validation_failed', { detail: message, errors: [{ path: given.length ? `/${given[1]}` : '/', message }] });
  }
  if (body.path !== undefined) return { scenario: await loadScenarioFile(engine.services, body.path), origin: 'file' };
  if (body.scenario !== undefined) return { scenario: normalizeScenario(body.scenario, { formats: engine.services.scenarioFormats.list() }), origin: 'inline' };
  const found = await engine.services.use('catalog').get(body.scenario_id!);
  if (!found) throw new Problem('not_found', { detail: `no catalog scenario has id "${body.scenario_id}"` });
  return { scenario: found, origin: 'catalog' };
}

/**
 * Every reason the scenario cannot run here: unknown adapter, adapter options, an agent timeout above
 * `AEH_MAX_AGENT_TIMEOUT_MS`, unknown metrics, metric params.
 */
function refusals(engine: Engine, scenario: Scenario): FieldError[] {
  const { agents, metrics, config } = engine.services;
  const errors: FieldError[] = [];
  const adapter = agents.get(scenario.agent.adapter);
  if (!adapter) errors.push({ path: '/agent/adapter', message: `unknown agent adapter "${scenario.agent.adapter}"; known: ${agents.names().join(', ')}` });
  else if (adapter.options) errors.push(...check(adapter.options, scenario.agent, '/agent'));
  if (!engine.services.find('llm')) {
    scenario.tasks.forEach((task, index) => {
      if (task.user_simulator) errors.push({ path: `/tasks/${index}/user_simulator`, message: 'a simulated user needs the language-model provider: set AEH_LLM_BASE_URL and AEH_LLM_MODEL, or script the turns instead' });
    });
  }
  const timeoutMs = scenario.agent.timeout_ms;
  if (typeof timeoutMs === 'number' && timeoutMs > config.quotas.maxAgentTimeoutMs) {
    errors.push({ path: '/agent/timeout_ms', message: `must be at most ${config.quotas.maxAgentTimeoutMs} ms on this service (AEH_MAX_AGENT_TIMEOUT_MS)` });
  }
  scenario.tasks.forEach((task, taskIndex) => {
    task.metrics.forEach((ref, refIndex) => {
      const metric = metrics.get(ref.id);
      const path = `/tasks/${taskIndex}/metrics/${refIndex}`;
      if (!metric) errors.push({ path: `${path}/id`, message: `unknown metric "${ref.id}"; known: ${metrics.names().join(', ') || 'none'}` });
      else if (metric.params) errors.push(...check(metric.params, ref.params ?? {}, `${path}/params`));
    });
  });
  return errors;
}

async function buildVariants(engine: Engine, scenario: Scenario, body: EvaluateBody): Promise<PlannedVariant[]> {
  const variants: PlannedVariant[] = [];
  const seen = new Set<string>();
  for (const [index, mutation] of (body.mutations ?? []).entries()) {
    const made = await mutateScenario(scenario, normalizeTypes(mutation.type), {
      seed: mutation.seed ?? body.seed ?? DEFAULT_SEED,
      count: mutation.count ?? 1,
      mutators: engine.services.mutators,
      llm: engine.services.find('llm'),
      options: mutation.options,
    }).catch((error) => {
      // The mutation module names `/type`; here it is `/mutations/<i>/type`.
      if (error instanceof Problem && error.errors) throw new Problem(error.code, { detail: error.detail, errors: error.errors.map((e) => ({ ...e, path: `/mutations/${index}${e.path}` })), extra: error.extra });
      throw error;
    });
    for (const variant of made) {
      const id = seen.has(variant.variant_id) ? `${variant.variant_id}/${index}` : variant.variant_id;
      seen.add(id);
      variants.push({ variant_id: id, types: variant.types, seed: variant.seed, changes: variant.changes, scenario: { ...variant.scenario, agent: scenario.agent } });
    }
  }
  return variants;
}

function newId(prefix: string, now: number): string {
  // Time first so ids sort roughly by creation; 80 random bits make them unguessable.
  const random = crypto.getRandomValues(new Uint8Array(10));
  let suffix = '';
  for (const byte of random) suffix += byte.toString(36).padStart(2, '0');
  return `${prefix}_${now.toString(36)}${suffix}`;
}

/** Where submission builds a scenario's world to check it: as a run would, in the pool under the shim budget. */
function submissionExecution(services: Engine['services'], owner: string | undefined): ShimExecution {
  return { offload: services.capabilities.offload, budgetMs: services.config.shimBudgetMs, group: principalGroup(owner, 'submission') };
}

/** What submission checked: the scenario as it will run, its identity, the agent chosen, the variables the agent may send. */
interface Checked {
  scenario: Scenario;
  identity: ScenarioIdentity;
  chosen: AgentChoice;
  agentEnvs: string[];
}

/** Resolves the scenario, its agent and its named shim configurations, and refuses what cannot run (400). */
async function checkedScenario(engine: Engine, body: EvaluateBody, owner: string | undefined): Promise<Checked> {
  const { services } = engine;
  const given = await resolveScenario(engine, body);
  const chosen = await chooseAgent(services, given.scenario, body.agent, engine.sha3);
  // Declared checks run their metrics whether or not `metrics` lists them; the plan shows what is judged.
  // Named shim configurations are spelled out into the plan, so the stored plan is self-contained.
  const resolved = await resolveShimConfigs(withImpliedMetrics(chosen.scenario, (id) => services.metrics.get(id) !== undefined), (key) => services.store.getJson<NamedShimConfig>(key), services.config.enabledShims);
  const scenario = resolved.scenario;
  const identity: ScenarioIdentity = { id: scenario.id, content_hash: memoizedContentHash(scenario, engine.sha3), origin: given.origin };
  // Issue 32 item 7: an inline scenario under a catalog scenario's id would be certified, listed and pinned as it.
  if (given.origin === 'inline') await checkInlineScenarioId(services, given.scenario, { asRun: identity.content_hash, factory: engine.sha3 });
  const errors = [...refusals(engine, scenario), ...resolved.errors, ...await worldRefusals(services.shims, scenario, services.config.enabledShims, new Date(services.now()).toISOString(), resolved.trusted, submissionExecution(services, owner))];
  if (errors.length) throw new Problem('validation_failed', { detail: `the scenario cannot run: ${describeErrors(errors)}`, errors });
  // A bare AEH_AGENT_KEY_ENVS variable is for registry agents only; the check notes which variables the agent uses.
  const checkContext = agentCheckContext(services, { registered: chosen.agent.name !== undefined });
  // A pinned key set is fetched when the run starts; an address no connection may reach is refused now.
  const jwksUrl = (scenario.agent.signature_key as { jwks_url?: unknown } | undefined)?.jwks_url;
  if (jwksUrl !== undefined) checkContext.checkUrl(jwksUrl, '/agent/signature_key/jwks_url');
  await services.agents.get(scenario.agent.adapter)!.check?.(scenario.agent, checkContext);
  return { scenario, identity, chosen, agentEnvs: variablesUsed(checkContext) };
}

/**
 * Refuses a run of more than MAX_UNITS units (issue 25 item 12: every unit counts, `trials` included), naming
 * `/trials` when the trials alone pass it, `/mutations` when the variants do, else `/attacks` (each attack case
 * is one unit of one task).
 */
function checkUnits(scenario: Scenario, variants: number, attackCases = 0): number {
  const trials = scenario.trials ?? 1;
  const units = scenario.tasks.length * (variants + trials) + attackCases;
  if (units <= MAX_UNITS) return units;
  const path = scenario.tasks.length * trials > MAX_UNITS ? '/trials' : scenario.tasks.length * (variants + trials) > MAX_UNITS ? '/mutations' : '/attacks';
  throw new Problem('validation_failed', {
    detail: `the run would have ${units} units (tasks × (variants + trials), and attack cases); the limit is ${MAX_UNITS}`,
    errors: [{ path, message: path === '/trials' ? 'too many tasks × trials' : path === '/mutations' ? 'too many variants for this scenario' : 'too many attack cases (tasks × attacks × injection tasks)' }],
  });
}

/**
 * The most a run of `scenario` may store in shared blobs (issue 33 item 2): the scenario, and its initial world,
 * which `world.json` keeps as a blob of its own. Counted against the submitter's stored bytes at submission, so
 * inline `initial_state` is capped per principal, not only per body; the run gives back what it did not store.
 */
function bytesMayStore(scenario: Scenario, scenarioText: string): number {
  const world = scenario.initial_state ? JSON.stringify(scenario.initial_state).length : 0;
  return encoder.encode(scenarioText).byteLength + world;
}

/**
 * Validates, persists and queues an evaluation; returns its ids.
 * @param submitter the submitting principal: its place in the queue quota is reserved atomically, it is
 *   dispatched fairly, and asked again when the run starts or resumes (a revoked submitter's run does not start)
 * @param reserve for an idempotent submission (idempotency.ts): called once everything is validated, with fresh
 *   ids; answers the ids to store under, or an earlier submission's to answer instead. The task record is then
 *   written last, so that it proves the submission complete.
 */
export async function submitEvaluation(engine: Engine, body: EvaluateBody, submitter?: Principal, reserve?: (fresh: RunIds) => Promise<Reserved>): Promise<RunIds & { agent_envs?: string[] }> {
  const { services } = engine;
  const { store, config } = services;
  const owner = submitter?.id;
  if (body.cache === true && engine.cacheTtlSeconds === 0) {
    throw new Problem('validation_failed', { detail: 'the response cache is turned off on this service (AEH_AGENT_CACHE_TTL_SECONDS=0)', errors: [{ path: '/cache', message: 'the response cache is off (AEH_AGENT_CACHE_TTL_SECONDS=0)' }] });
  }
  const checked = await checkedScenario(engine, body, owner);
  // Refused before any quota is taken: a policy below the operator's floor, without verdict:relax (403).
  const verdict = policyOf(services, checked.scenario, body, submitter);
  // Refused before any variant is built: a hostile `count` must not make the mutators do the work first.
  checkUnits(checked.scenario, (body.mutations ?? []).reduce((sum, mutation) => sum + (mutation.count ?? 1), 0), attackCaseCount(services.attacks, checked.scenario, body.attacks));
  if (owner !== undefined) await checkQueueQuota(store, owner, config.quotas.queuedRunsPerPrincipal);
  const mutated = await buildVariants(engine, checked.scenario, body);
  const attacked = await buildAttackCases({ attacks: services.attacks, shims: services.shims, scenario: checked.scenario, requested: body.attacks, now: new Date(services.now()).toISOString(), execution: submissionExecution(services, owner) });
  const variants = [...mutated, ...attacked.variants];
  const units = checkUnits(checked.scenario, mutated.length, attacked.variants.length);
  checkGoldReplay(checked.scenario, mutated.length, attacked.variants.reduce((sum, variant) => sum + (checked.scenario.tasks.find((task) => task.id === variant.task_id)?.expected_actions?.length ?? 0), 0));
  const now = services.now();
  const fresh = { run_id: newId('run', now), task_id: newId('task', now) };
  const scenarioText = JSON.stringify(checked.scenario);
  const reservedBytes = owner === undefined ? 0 : bytesMayStore(checked.scenario, scenarioText);
  const place = owner === undefined ? undefined : await reserveTask(store, owner, fresh.task_id, units, config.quotas, services.now, reservedBytes);
  try {
    const reserved = reserve ? await reserve(fresh) : undefined;
    if (reserved?.replay) {
      await place?.release();
      return reserved.ids;
    }
    const ids = reserved?.ids ?? fresh;
    if (place && ids.task_id !== fresh.task_id) await place.moveTo(ids.task_id);
    return await persist(engine, { body, checked, verdict, variants, notInjectable: attacked.notInjectable, ids, submitter, place, recordLast: reserved !== undefined, now, scenarioText, reservedBytes });
  } catch (error) {
    await place?.release().catch(() => undefined);
    throw error;
  }
}

/**
 * The verdict policy a run applies: the defaults (raised to the operator's floor, AEH_VERDICT_FLOOR), the
 * scenario's, then the request's. Throws 403 when it is below the floor and the submitter may not relax it.
 */
function policyOf(services: Engine['services'], scenario: Scenario, body: EvaluateBody, submitter: Principal | undefined): VerdictPolicy {
  const floor = services.config.verdictFloor;
  const policy = resolvePolicy(floorDefaults(floor), scenario.verdict, body.verdict);
  const mayRelax = submitter !== undefined && permissionCheck(RELAX_PERMISSION)(submitter.permissions);
  assertAboveFloor(policy, floor, [{ policy: scenario.verdict, at: '/scenario/verdict' }, { policy: body.verdict, at: '/verdict' }], mayRelax);
  return policy;
}

/** What `persist` stores. */
interface Submission {
  body: EvaluateBody;
  checked: Checked;
  /** The verdict policy the run applies (`policyOf`, checked against the floor before any quota was taken). */
  verdict: VerdictPolicy;
  variants: PlannedVariant[];
  /** User tasks no attack reaches (their gold reads no injection vector). */
  notInjectable: string[];
  ids: RunIds;
  submitter?: Principal;
  place?: Reservation;
  /** Write the task record after everything else (an idempotent submission: the record proves it complete). */
  recordLast: boolean;
  now: number;
  /** `JSON.stringify` of the scenario, as the plan holds it. */
  scenarioText: string;
  /** What the reservation counted against the submitter's stored bytes (`bytesMayStore`). */
  reservedBytes: number;
}

/**
 * Stores the plan, the task with its first handoff token and its active entry, then queues the task. The run's
 * record is not written until the run ends: until then it is rebuilt from the plan and the task (run-record.ts).
 */
async function persist(engine: Engine, { body, checked, verdict, variants, notInjectable, ids, submitter, place, recordLast, now, scenarioText, reservedBytes }: Submission): Promise<RunIds & { agent_envs?: string[] }> {
  const { services } = engine;
  const { scenario, identity, chosen, agentEnvs } = checked;
  const { run_id: runId, task_id: taskId } = ids;
  const plan: RunPlan = { run_id: runId, task_id: taskId, seed: body.seed ?? null, scenario, variants, agent: chosen.agent, ...(notInjectable.length ? { not_injectable: notInjectable } : {}), ...(body.cache === true ? { cache: true } : {}), verdict, scenario_hash: identity.content_hash, origin: identity.origin };
  const total = unitCount(plan);
  const planText = JSON.stringify(plan);
  const planBytes = encoder.encode(planText);
  const scenarioDigest = sha3Hex(planBytes, engine.sha3);
  const createdAt = new Date(now).toISOString();
  const task: TaskRecord = { task_id: taskId, run_id: runId, status: 'queued', progress: { done: 0, total }, created_at: createdAt, started_at: null, finished_at: null, ...(submitter === undefined ? {} : { submitted_by: submitter.id, submitter: storedCreator(submitter) }), ...(agentEnvs.length ? { agent_envs: agentEnvs } : {}), ...(reservedBytes > 0 ? { reserved_bytes: reservedBytes } : {}) };
  const state: HandoffState = {
    run_id: runId, task_id: taskId, next: 0, total, step: 0, phase: 'running', position: positionAt(plan, 0),
    trace: { seq: 0, bytes: 0, digest: EMPTY_SHA3 }, scenario_digest: scenarioDigest,
  };
  task.handoff = await signHandoff(state, engine.handoffKey, { now, ttlSeconds: engine.handoffTtlSeconds });
  const writeTask = () => services.store.setJson(keys.task(taskId), task);
  await Promise.all([
    // The scenario is stored once, shared by every run of it (pack-evidence.ts); the plan's bytes rebuild exactly.
    storePlan(services.store, runId, SIDECARS.scenario, planText, scenarioText, engine.sha3, submitter?.id),
    ...(recordLast ? [] : [writeTask()]),
    activeTasks(services.store).add(taskId, createdAt),
  ]);
  if (recordLast) await writeTask();
  await engine.runIndex.add(runId);
  // With a shared queue another instance may start (and checkpoint) the task first; the state in memory would then be stale.
  if (!engine.queue.shared && engine.fresh.size < FRESH_LIMIT) engine.fresh.set(taskId, { task, plan, state });
  await engine.queue.enqueue(taskId, { owner: submitter?.id, rank: (place?.ahead ?? 0) + 1 });
  services.telemetry.increment('evaluations.accepted');
  return { task_id: taskId, run_id: runId, ...(agentEnvs.length ? { agent_envs: agentEnvs } : {}) };
}
