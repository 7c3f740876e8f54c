/**
 * One unit of a run: a task of the original scenario or of a variant. Records the topology handoff into the
 * task's agent, the input, the agent's output, its tool calls and handoffs, then every metric's result — each
 * as a trace event that the run state also observes.
 */
import type { MetricContext, MetricResult } from '../../core/metric.ts';
import { readJailedFile } from '../../core/jail.ts';
import { agentEnvironment } from '../../core/agent-adapter.ts';
import type { TraceEvent, TraceEventType } from '../../core/trace.ts';
import { checkAgentSignature } from './agent-signature.ts';
import { callAgent, DEFAULT_TIMEOUT_MS } from './call-agent.ts';
import { agentOf, channelBetween, taskOf, unitAt, variantOf } from './plan.ts';
import type { MetricResultData } from './run-state.ts';
import type { RunContext } from './runner.ts';

const HANDOFF_CONTENT_LIMIT = 2000;

function normalizeResult(result: MetricResult, outputEvent: number): Pick<MetricResultData, 'score' | 'failures' | 'note'> {
  const raw = result?.score;
  const score = typeof raw === 'number' && Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : null;
  const failures = (Array.isArray(result?.failures) ? result.failures : []).map((failure) => ({
    code: String(failure.code),
    severity: failure.severity ?? 'medium',
    message: String(failure.message ?? ''),
    event_index: typeof failure.event_index === 'number' ? failure.event_index : outputEvent,
    ...(failure.evidence !== undefined ? { evidence: failure.evidence } : {}),
  }));
  return { score, failures, ...(result?.note ? { note: String(result.note) } : {}) };
}

/** Runs unit `index`; false when the agent call failed and the run must end. */
export async function runUnit(run: RunContext, index: number): Promise<boolean> {
  const { plan, writer, state, engine, adapter } = run;
  const { services } = engine;
  const unit = unitAt(plan, index);
  const task = taskOf(plan, unit);
  const variant = variantOf(plan, unit);
  const scenario = unit.variantIndex < 0 ? plan.scenario : plan.variants[unit.variantIndex]!.scenario;
  const agent = agentOf(plan.scenario, task);
  const events: TraceEvent[] = [];
  const record = (type: TraceEventType, data: Record<string, unknown>, by: string | null = agent): number => {
    const seq = writer.emit(type, { task_id: task.id, agent: by, variant, data });
    const event = writer.last()!;
    state.observe(event);
    events.push(event);
    return seq;
  };

  const previous = state.lastAgent(variant);
  const history = state.history(variant);
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
    env: agentEnvironment(services.config.env),
    readFile: (path: string) => readJailedFile(services, path),
    variant,
  };
  const options = { timeoutMs, parent: run.signal };

  record('input', { input: task.input });
  const called = await callAgent(adapter, task.input, { ...callContext, history: prior }, options);
  const latency = Math.round(called.latency_ms * 1000) / 1000;
  if ('failure' in called) {
    record('error', { ...called.failure, latency_ms: latency });
    return false;
  }
  const { reply } = called;
  // An agent's signature is recorded as one only when it verifies against the key pinned for the agent.
  const signed = reply.signature ? await checkAgentSignature(reply.signature, reply.output, spec, services.fetch) : {};
  const outputEvent = record('agent_output', { output: reply.output, latency_ms: latency, ...signed });
  for (const call of reply.tool_calls ?? []) record('tool_call', { name: call.name, arguments: call.arguments ?? null, ...(call.result !== undefined ? { result: call.result } : {}) });
  for (const handoff of reply.handoffs ?? []) record('handoff', { from: handoff.from, to: handoff.to, ...(handoff.channel ? { channel: handoff.channel } : {}), content: handoff.content }, handoff.from);

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

  for (const ref of task.metrics) {
    const metric = services.metrics.get(ref.id);
    const base = { metric: ref.id, dimension: metric?.dimension ?? 'reliability', weight: ref.weight ?? 1 };
    let data: MetricResultData;
    try {
      if (!metric) throw new Error(`metric "${ref.id}" is not loaded`);
      const context: MetricContext = {
        scenario, task, ref, params: ref.params ?? {}, output: reply.output, outputEvent, events, latencyMs: called.latency_ms,
        variants, probe, llm: services.llm, signal: run.signal,
      };
      data = { ...base, ...normalizeResult(await metric.score(context), outputEvent) };
    } catch (error) {
      if (run.signal.aborted) throw run.signal.reason;
      const message = `metric ${ref.id} failed: ${(error as Error)?.message ?? String(error)}`.slice(0, 500);
      data = { ...base, score: null, failures: [{ code: 'INFRA.METRIC_ERROR', severity: 'medium', message, event_index: outputEvent }], note: message };
    }
    record('metric_result', data as unknown as Record<string, unknown>);
  }
  return true;
}
