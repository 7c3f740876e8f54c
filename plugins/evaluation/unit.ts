/**
 * One unit of a run: a task of the original scenario or of a variant. Records the topology handoff into the
 * task's agent, the input, the agent's output, its tool calls and handoffs, then every metric's result — each
 * as a trace event that the run state also observes.
 */
import { readJailedFile } from '../../core/guards/jail.ts';
import { agentEnvironmentOf } from '../../core/guards/agent-environment.ts';
import type { TraceEvent, TraceEventInput, TraceEventType } from '../../core/domain/trace.ts';
import { checkAgentSignature } from './agent-signature.ts';
import { callAgent, DEFAULT_TIMEOUT_MS } from './call-agent.ts';
import { agentOf, channelBetween, taskOf, unitAt, variantOf } from './plan.ts';
import type { RunContext } from './run-context.ts';
import { scoreTaskMetrics } from './score-metrics.ts';
import { createTaskWorld } from './world.ts';
import { converse, type Asked } from './conversation.ts';
import type { AgentTurn } from '../../core/agent-adapter.ts';

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

/**
 * Runs unit `index`; false when the agent call failed and the run must end. With `independent`, the task is
 * its own conversation: it gets no earlier turns and no topology handoff, so it may run beside others.
 */
export async function runUnit(run: RunContext, index: number, recorder: UnitRecorder = directRecorder(run), independent = false): Promise<boolean> {
  const { plan, state, engine, adapter } = run;
  const { services } = engine;
  const unit = unitAt(plan, index);
  const task = taskOf(plan, unit);
  const variant = variantOf(plan, unit);
  const scenario = unit.variantIndex < 0 ? plan.scenario : plan.variants[unit.variantIndex]!.scenario;
  const agent = agentOf(plan.scenario, task);
  const { trial } = unit;
  const events: TraceEvent[] = [];
  const record = (type: TraceEventType, data: Record<string, unknown>, by: string | null = agent): number => {
    const event = recorder(type, { task_id: task.id, agent: by, variant, ...(trial !== undefined ? { trial } : {}), data });
    events.push(event);
    return event.seq;
  };

  // Each trial is its own conversation: trial j of a task continues trial j of the tasks before it.
  const previous = independent ? undefined : state.lastAgent(variant, trial);
  const history = independent ? [] : state.history(variant, trial);
  if (previous && agent && previous !== agent) {
    const last = history[history.length - 1];
    const channel = channelBetween(plan.scenario, previous, agent);
    record('handoff', { from: previous, to: agent, ...(channel ? { channel } : {}), content: (last?.role === 'assistant' ? last.content : '').slice(0, HANDOFF_CONTENT_LIMIT) }, previous);
  }
  // Not copied: the run state appends this task's turns only after the call returns (O(1) per task).
  const prior = history;
  const spec = plan.scenario.agent;
  const timeoutMs = typeof spec.timeout_ms === 'number' && spec.timeout_ms > 0 ? spec.timeout_ms : DEFAULT_TIMEOUT_MS;
  const callContext = {
    run_id: run.task.run_id,
    scenario,
    task,
    spec,
    fetch: services.fetch,
    files: services.capabilities.files,
    env: agentEnvironmentOf(services.config),
    readFile: (path: string) => readJailedFile(services, path),
    variant,
  };
  const options = { timeoutMs, parent: run.signal };

  // A multi-turn task keeps its own copy of the conversation: the run state appends to `prior` as turns are recorded.
  const multiTurn = Boolean(task.turns?.length || task.user_simulator);
  const before = multiTurn ? prior.slice() : prior;
  record('input', { input: task.input });
  // The task's world starts from the scenario's initial state; its clock is the run's, never the wall clock.
  const world = await createTaskWorld({
    shims: services.shims, scenario, task, now: run.task.created_at, record: (type, data) => record(type, data),
    execution: { offload: services.capabilities.offload, budgetMs: services.config.shimBudgetMs, signal: run.signal },
  });
  // Reachable over MCP too, until the world closes (mcp-worlds.ts).
  const mcp = world ? await engine.mcp.open(run.task.run_id, world, run.signal) : undefined;

  /** One turn: the agent's call with the conversation so far, its answer, tool calls and handoffs. */
  const ask = async (input: string, history: readonly AgentTurn[], marks: Record<string, unknown> = {}): Promise<Asked | null> => {
    const called = await callAgent(adapter, input, { ...callContext, history, ...(world ? { tools: world } : {}), ...(mcp ? { mcp: mcp.access } : {}) }, options);
    const latency = Math.round(called.latency_ms * 1000) / 1000;
    if ('failure' in called) {
      record('error', { ...called.failure, latency_ms: latency, ...marks });
      return null;
    }
    const { reply } = called;
    // An agent's signature is recorded as one only when it verifies against the key pinned for the agent.
    const signed = reply.signature ? await checkAgentSignature(reply.signature, reply.output, spec, services.fetch) : {};
    const outputEvent = record('agent_output', { output: reply.output, latency_ms: latency, ...signed, ...marks });
    for (const call of reply.tool_calls ?? []) {
      // A call the world ran is in the trace already, with its state change.
      if (world?.has(call.name) && call.result !== undefined) continue;
      record('tool_call', { name: call.name, arguments: call.arguments ?? null, ...(call.result !== undefined ? { result: call.result } : {}), ...(world?.has(call.name) ? { executed: false } : {}) });
    }
    for (const handoff of reply.handoffs ?? []) record('handoff', { from: handoff.from, to: handoff.to, ...(handoff.channel ? { channel: handoff.channel } : {}), content: handoff.content }, handoff.from);
    return { reply, outputEvent, latencyMs: called.latency_ms };
  };

  let last = await ask(task.input, before);
  if (last && multiTurn) {
    last = await converse({
      task, base: before, first: last, llm: services.find('llm'), signal: run.signal, record, events,
      ask: (input, history, marks) => {
        record('input', { input, ...marks });
        return ask(input, history, marks);
      },
      views: async () => (world ? world.views() : {}),
    });
  }
  world?.close();
  mcp?.close();
  if (!last) return false;
  const { reply, outputEvent } = last;
  const called = { latency_ms: last.latencyMs };

  const probe = adapter.recorded
    ? undefined
    : async (input: string) => {
      record('input', { input, probe: true });
      const answer = await callAgent(adapter, input, { ...callContext, history: prior }, options);
      if ('failure' in answer) {
        record('agent_output', { output: '', probe: true, error: answer.failure });
        throw new Error(`probe failed: ${answer.failure.message}`);
      }
      const seq = record('agent_output', { output: answer.reply.output, latency_ms: Math.round(answer.latency_ms * 1000) / 1000, probe: true });
      return { output: answer.reply.output, event_index: seq };
    };
  const variants = unit.variantIndex < 0 && plan.variants.length > 0
    ? plan.variants.map((planned) => {
      const outcome = state.outcome(task.id, planned.variant_id);
      return { variant: planned.variant_id, output: outcome?.output ?? '', passed: outcome?.passed ?? false, scores: { ...(outcome?.scores ?? {}) } };
    })
    : undefined;

  const context = {
    scenario, task, output: reply.output, outputEvent, events, latencyMs: called.latency_ms, variants, probe, llm: services.find('llm'), signal: run.signal,
    ...(world ? { world: { initial: world.initial, final: await world.views() } } : {}),
  };
  // Scored off the request thread where the metric allows it, each under the metric budget (score-metrics.ts).
  for await (const data of scoreTaskMetrics(services, task.metrics, context, engine.metricLimits)) record('metric_result', data as unknown as Record<string, unknown>);
  return true;
}
