/**
 * One unit of a run: a task of the original scenario or of a variant. Records the topology handoff into the
 * task's agent, the input, the agent's output, its tool calls and handoffs, then every metric's result — each
 * as a trace event that the run state also observes.
 */
import { readJailedFile } from '../../../core/guards/jail.ts';
import type { AgentCallContext, AgentTurn } from '../../../core/agent-adapter.ts';
import { agentEnvironmentOf } from '../../../core/guards/agent-environment.ts';
import type { TraceEvent, TraceEventInput, TraceEventType } from '../../../core/domain/trace.ts';
import { checkAgentSignature } from './agent-signature.ts';
import { DEFAULT_TIMEOUT_MS, type CallOptions } from './call-agent.ts';
import { callFacts, callThroughCache } from './agent-cache.ts';
import { agentOf, channelBetween, isAttackVariant, scenarioOf, taskOf, unitAt, variantOf, type Unit } from '../submission/plan.ts';
import type { RunContext } from '../running/run-context.ts';
import { scoreTaskMetrics } from '../scoring/score-metrics.ts';
import { createTaskWorld, type TaskWorld } from '../worlds/world.ts';
import { goldWorldOf } from '../worlds/gold-world.ts';
import { toolCallsOf } from '../../../core/domain/tool-calls.ts';
import { shimExecutionOf } from '../worlds/shim-execution.ts';
import { principalGroup } from '../../../core/capabilities.ts';
import { ShimBudgetError } from '../../../core/domain/shim-run.ts';
import type { OpenWorld } from '../worlds/mcp-worlds.ts';
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import { converse, openingMessage, type Asked } from './conversation.ts';
import { openingLimit, userSideOf } from './simulated-user.ts';
import { recordWorldChecks } from '../worlds/world-links.ts';
import type { MetricResultData } from '../running/run-state.ts';
import { dosResult } from '../attacks/outcomes.ts';
import { redactedResult } from '../scoring/redacted-result.ts';
import { argumentsDepthRefusal } from '../../../core/guards/json-depth.ts';

const HANDOFF_CONTENT_LIMIT = 2000;

/**
 * Where a unit's events go: straight into the run's trace (and state), or into a buffer that the concurrent
 * executor commits in unit order (concurrent-units.ts). Returns the event as recorded, `seq` included.
 */
export type UnitRecorder = (type: TraceEventType, input: TraceEventInput) => TraceEvent;

/** The recorder of a unit run in sequence: the trace writer and the run state see each event at once. */
export function directRecorder(run: RunContext): UnitRecorder {
  return (type, input) => {
    run.writer.emit(type, input);
    const event = run.writer.last()!;
    run.state.observe(event);
    return event;
  };
}

/** Records one event of the unit (`by` defaults to the task's agent); its `seq`. */
type RecordEvent = (type: TraceEventType, data: Record<string, unknown>, by?: string | null) => number;

/** What every step of one unit shares. */
interface UnitScope {
  run: RunContext;
  unit: Unit;
  task: ScenarioTask;
  variant: string | undefined;
  /** The original scenario or the variant's. */
  scenario: Scenario;
  agent: string | null;
  /** The unit's events so far, as recorded. */
  events: TraceEvent[];
  record: RecordEvent;
  /** The agent call's context but for what changes per turn: the conversation and the world. */
  callContext: Omit<AgentCallContext, 'signal' | 'history' | 'tools' | 'mcp'>;
  callOptions: CallOptions;
  world?: TaskWorld;
  mcp?: OpenWorld;
}

function scopeOf(run: RunContext, index: number, recorder: UnitRecorder): UnitScope {
  const { plan } = run;
  const { services } = run.engine;
  const unit = unitAt(plan, index);
  const task = taskOf(plan, unit);
  const variant = variantOf(plan, unit);
  const scenario = scenarioOf(plan, unit);
  const agent = agentOf(plan.scenario, task);
  const { trial } = unit;
  const events: TraceEvent[] = [];
  const record: RecordEvent = (type, data, by = agent) => {
    const event = recorder(type, { task_id: task.id, agent: by, variant, ...(trial !== undefined ? { trial } : {}), data });
    events.push(event);
    return event.seq;
  };
  const spec = plan.scenario.agent;
  const timeoutMs = typeof spec.timeout_ms === 'number' && spec.timeout_ms > 0 ? spec.timeout_ms : DEFAULT_TIMEOUT_MS;
  const callContext = {
    run_id: run.task.run_id,
    scenario,
    task,
    spec,
    fetch: services.fetch,
    files: services.capabilities.files,
    env: agentEnvironmentOf(services.config, { registered: plan.agent?.name !== undefined }),
    readFile: (path: string) => readJailedFile(services, path),
    variant,
    ...(trial !== undefined ? { trial } : {}),
  };
  return { run, unit, task, variant, scenario, agent, events, record, callContext, callOptions: { timeoutMs, parent: run.signal } };
}

/**
 * The conversation before this unit (the run state's own list, not a copy), after recording the topology
 * handoff into the task's agent when the previous turn was another agent's.
 */
function conversationBefore(scope: UnitScope, independent: boolean): AgentTurn[] {
  const { run, unit, variant, agent, record } = scope;
  // Each trial is its own conversation: trial j of a task continues trial j of the tasks before it.
  const previous = independent ? undefined : run.state.lastAgent(variant, unit.trial);
  const history = independent ? [] : run.state.history(variant, unit.trial);
  if (previous && agent && previous !== agent) {
    const last = history[history.length - 1];
    const channel = channelBetween(run.plan.scenario, previous, agent);
    record('handoff', { from: previous, to: agent, ...(channel ? { channel } : {}), content: (last?.role === 'assistant' ? last.content : '').slice(0, HANDOFF_CONTENT_LIMIT) }, previous);
  }
  return history;
}

/**
 * The task's world (when the scenario enables shims), also reachable over MCP until it closes (mcp-worlds.ts).
 * False when its starting state did not build within the shim budget: the run ends on that error.
 */
async function openWorld(scope: UnitScope): Promise<boolean> {
  const { run, scenario, task, record } = scope;
  const { services } = run.engine;
  // The task's world starts from the scenario's initial state; its clock is the run's, never the wall clock.
  try {
    // The simulated user's own calls (a world with user_shims) are recorded as the user's.
    scope.world = await createTaskWorld({ shims: services.shims, scenario, task, now: run.task.created_at, record: (type, data) => record(type, data, data.requestor === 'user' ? 'user' : undefined), execution: shimExecutionOf(run) });
  } catch (error) {
    if (!(error instanceof ShimBudgetError)) throw error;
    record('error', { code: 'world_budget', failure_code: 'INFRA.WORLD_BUDGET', message: error.message });
    return false;
  }
  scope.mcp = scope.world ? await run.engine.mcp.open(run.task.run_id, scope.world, run.signal) : undefined;
  // The agent's calls count its own time: the world's time on its tool calls is given back (call-agent.ts).
  if (scope.world) scope.callOptions = { ...scope.callOptions, harnessMs: scope.world.busyMs };
  return true;
}

/**
 * Whether the agent has called a terminal action of an enabled shim successfully (core/shim.ts `terminal`: a
 * transfer to a human ends the conversation); `undefined` when no enabled shim has one.
 */
function handedOffBy({ run, scenario, events }: UnitScope): (() => boolean) | undefined {
  const terminal = new Set<string>();
  for (const name of scenario.enabled_shims ?? []) {
    for (const action of run.engine.services.shims.get(name)?.actions ?? []) if (action.terminal) terminal.add(`${name}.${action.name}`);
  }
  if (terminal.size === 0) return undefined;
  return () => events.some((event) => event.type === 'tool_call' && !event.data.error && terminal.has(String(event.data.name)));
}

/** One turn: the agent's call with the conversation so far, its answer, tool calls and handoffs. */
async function ask(scope: UnitScope, input: string, history: readonly AgentTurn[], marks: Record<string, unknown> = {}): Promise<Asked | null> {
  const { run, record, world, mcp } = scope;
  const { result: called, cacheKey } = await callThroughCache(run, input, { ...scope.callContext, history, ...(world ? { tools: world } : {}), ...(mcp ? { mcp: mcp.access } : {}) }, scope.callOptions, scope.unit.trial);
  const latency = Math.round(called.latency_ms * 1000) / 1000;
  if ('failure' in called) {
    const message = run.engine.services.use('redactor').text(called.failure.message, { scenario: run.plan.scenario });
    record('error', { ...called.failure, message, latency_ms: latency, ...marks });
    return null;
  }
  const { reply } = called;
  // An agent's signature is recorded as one only when it verifies against the key pinned for the agent.
  const signed = reply.signature ? await checkAgentSignature(reply.signature, reply.output, scope.callContext.spec, run.engine.services.fetch) : {};
  const outputEvent = record('agent_output', { output: reply.output, latency_ms: latency, ...callFacts(reply, cacheKey), ...signed, ...marks });
  for (const call of reply.tool_calls ?? []) {
    // A call the world ran is in the trace already, with its state change (failed calls too). One an adapter
    // reports but did not run on the world is recorded as not executed, never dropped: before, a reported call
    // with a result vanished (a replayed trace's calls were neither run nor recorded).
    if (call.executed === true) continue;
    const tooDeep = argumentsDepthRefusal(call.arguments);
    record('tool_call', { name: call.name, arguments: call.arguments ?? null, ...(call.result !== undefined ? { result: call.result } : {}), ...(world?.has(call.name) ? { executed: false } : {}), ...(tooDeep ? { error: { code: 'invalid', message: tooDeep } } : {}) });
  }
  for (const handoff of reply.handoffs ?? []) record('handoff', { from: handoff.from, to: handoff.to, ...(handoff.channel ? { channel: handoff.channel } : {}), content: handoff.content }, handoff.from);
  return { reply, outputEvent, latencyMs: called.latency_ms };
}

/** A probe for metrics that ask the agent again (recorded as probe events), unless the adapter replays a recording. */
function probeOf(scope: UnitScope, prior: readonly AgentTurn[]) {
  const { run, record } = scope;
  if (run.adapter.recorded) return undefined;
  return async (input: string) => {
    record('input', { input, probe: true });
    const { result: answer, cacheKey } = await callThroughCache(run, input, { ...scope.callContext, history: prior }, scope.callOptions, scope.unit.trial);
    const latency = Math.round(answer.latency_ms * 1000) / 1000;
    if ('failure' in answer) {
      record('agent_output', { output: '', probe: true, error: answer.failure, latency_ms: latency });
      throw new Error(`probe failed: ${answer.failure.message}`);
    }
    const seq = record('agent_output', { output: answer.reply.output, latency_ms: latency, ...callFacts(answer.reply, cacheKey), probe: true });
    return { output: answer.reply.output, event_index: seq };
  };
}

/** For a task of the original, how each variant's run of it went (robustness metrics compare them). */
function variantOutcomes({ run, unit, task }: UnitScope) {
  const { plan, state } = run;
  // Attack cases are no perturbation of the task: robustness compares mutated variants only.
  const mutated = plan.variants.filter((planned) => !isAttackVariant(planned.variant_id) && (planned.task_id === undefined || planned.task_id === task.id));
  if (!(unit.variantIndex < 0 && mutated.length > 0)) return undefined;
  return mutated.map((planned) => {
    const outcome = state.outcome(task.id, planned.variant_id);
    return { variant: planned.variant_id, output: outcome?.output ?? '', passed: outcome?.passed ?? false, scores: { ...(outcome?.scores ?? {}) } };
  });
}

const writesCache = new WeakMap<Scenario, string[]>();

/** The enabled shims' actions that may change the world (not `readOnly`), once per scenario: `claim_check` judges them. */
function writesOf({ run, scenario }: UnitScope): string[] {
  let writes = writesCache.get(scenario);
  if (!writes) {
    writes = [];
    for (const name of scenario.enabled_shims ?? []) {
      for (const action of run.engine.services.shims.get(name)?.actions ?? []) if (!action.readOnly) writes.push(`${name}.${action.name}`);
    }
    writesCache.set(scenario, writes);
  }
  return writes;
}

/**
 * The world the task's gold actions produce, for `state_match` (gold-world.ts), their matchers met by this
 * attempt's calls; nothing without them.
 */
async function goldOf({ run, scenario, task, events }: UnitScope) {
  return (await goldWorldOf(run.engine.services.shims, scenario, task, run.task.created_at, shimExecutionOf(run), toolCallsOf(events))) ?? {};
}

/** Records every metric's result for the unit's final answer. */
async function scoreUnit(scope: UnitScope, last: Asked, prior: readonly AgentTurn[]): Promise<void> {
  const { run, scenario, task, events, world, record } = scope;
  const { services } = run.engine;
  const probe = probeOf(scope, prior);
  const variants = variantOutcomes(scope);
  const written = scope.unit.variantIndex < 0 ? undefined : run.plan.scenario.tasks[scope.unit.taskIndex]?.input;
  const context = {
    scenario, task, output: last.reply.output, outputEvent: last.outputEvent, events, latencyMs: last.latencyMs, variants, probe, llm: services.find('llm'), signal: run.signal,
    ...(written !== undefined && written !== task.input ? { writtenInput: written } : {}),
    ...(world ? { world: { initial: world.initial, final: await world.views(), ...(await goldOf(scope)), writes: writesOf(scope) } } : {}),
  };
  // Scored off the request thread where the metric allows it, each under the metric budget (score-metrics.ts).
  const redactor = services.use('redactor');
  // The original scenario: a variant's tasks keep their metric params, so their canaries are the same.
  const redaction = { scenario: run.plan.scenario };
  // Metric jobs queue fairly per principal in the pool, as shim calls do: one principal's run cannot starve another's.
  const results: MetricResultData[] = [];
  for await (const data of scoreTaskMetrics(services, task.metrics, context, run.engine.metricLimits, principalGroup(run.task.submitted_by))) {
    results.push(data);
    record('metric_result', redactedResult(data, redactor, redaction) as unknown as Record<string, unknown>);
  }
  // A denial-of-service attack has no goal of its own: it succeeded when the user's task is not done (attacks/outcomes.ts).
  const attack = scope.unit.variantIndex < 0 ? undefined : run.plan.variants[scope.unit.variantIndex]!.attack;
  if (attack?.dos) record('metric_result', dosResult(task, results, attack.attack, last.outputEvent) as unknown as Record<string, unknown>);
}

/**
 * Runs unit `index`; false when the agent call failed and the run must end. With `independent`, the task is
 * its own conversation: it gets no earlier turns and no topology handoff, so it may run beside others.
 */
export async function runUnit(run: RunContext, index: number, recorder: UnitRecorder = directRecorder(run), independent = false): Promise<boolean> {
  const scope = scopeOf(run, index, recorder);
  const { task, record, events } = scope;
  // Not copied: the run state appends this task's turns only after the call returns (O(1) per task).
  const prior = conversationBefore(scope, independent);
  // A multi-turn task keeps its own copy of the conversation: the run state appends to `prior` as turns are recorded.
  const multiTurn = Boolean(task.turns?.length || task.user_simulator);
  // With a greeting the agent speaks first (τ-bench) and the simulated user writes the first message.
  const greeting = task.user_simulator?.greeting;
  const before = multiTurn ? [...prior, ...(greeting ? [{ role: 'assistant' as const, content: greeting }] : [])] : prior;
  const llm = run.engine.services.find('llm');
  // The world opens first: a simulated user with tools of its own may use them before its first message.
  if (!(await openWorld(scope))) return false;
  const userSide = userSideOf(scope.world);
  const opened = greeting ? await openingMessage(llm!, task.user_simulator!, before, record, run.signal, userSide, openingLimit(task.user_simulator!, events, userSide)) : task.input;
  const input = typeof opened === 'string' ? opened : '';
  if (opened === undefined) {
    scope.world?.close();
    scope.mcp?.close();
    return false;
  }
  const inputEvent = record('input', { input, ...(greeting ? { greeting, simulated: true } : {}) });
  // A user who ends the conversation before saying anything leaves the agent nothing to answer.
  let last = greeting && input === '' ? { reply: { output: '' }, outputEvent: inputEvent, latencyMs: 0 } : await ask(scope, input, before);
  if (greeting && input === '') record('conversation_end', { turns: 0, ended_by: typeof opened === 'object' ? opened.limit : 'simulator' });
  else if (last && multiTurn) {
    last = await converse({
      task, base: before, first: last, input, llm, signal: run.signal, record, events, userSide,
      ask: (input, history, marks) => {
        record('input', { input, ...marks });
        return ask(scope, input, history, marks);
      },
      views: async () => (scope.world ? scope.world.views() : {}),
      handedOff: handedOffBy(scope),
    });
  }
  if (last && scope.world) recordWorldChecks(scope.world, task, record);
  scope.world?.close();
  scope.mcp?.close();
  if (!last) return false;
  await scoreUnit(scope, last, prior);
  return true;
}
