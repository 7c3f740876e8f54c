/**
 * One call to the agent under evaluation, bounded by the per-call timeout (`agent.timeout_ms`, default 30 s)
 * and by the task's own signal (cancellation, shutdown). Failures become the engine's failure codes
 * (integration.md item 2): `INFRA.AGENT_TIMEOUT`, `INFRA.SSRF_BLOCKED`, `INFRA.AGENT_ERROR`.
 *
 * The timeout and the recorded latency count the agent's own time: what the harness spent on the agent's tool calls
 * meanwhile (`harnessMs`, the task world's busy time: its shims, the worker pool, its queue) is taken out, so a
 * slow harness on a busy machine never ends a run as the agent's timeout nor fails its `latency_budget` (issue 36).
 */
import type { AgentAdapter, AgentCallContext, AgentReply } from '../../../core/agent-adapter.ts';
import { isProblem } from '../../../core/problems.ts';
import { modelOf, requestsOf, usageOf } from '../../../core/domain/usage.ts';

/** Default per-call timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Why an agent call failed, as the trace's `error` event records it. */
export interface CallFailure {
  code: 'agent_timeout' | 'ssrf_blocked' | 'agent_error';
  failure_code: 'INFRA.AGENT_TIMEOUT' | 'INFRA.SSRF_BLOCKED' | 'INFRA.AGENT_ERROR';
  message: string;
}

export type CallResult = { reply: AgentReply; latency_ms: number } | { failure: CallFailure; latency_ms: number };

/** The call's bounds: the per-call timeout, the task's signal, and the harness's busy time on the agent's behalf. */
export interface CallOptions {
  timeoutMs: number;
  parent: AbortSignal;
  /** Milliseconds the harness has been busy on the agent's tool calls so far (the task world's `busyMs`). */
  harnessMs?: () => number;
}

/** The agent's own time from now on: the wall time less the harness's busy time on its tool calls. */
function ownClock(harnessMs: (() => number) | undefined): () => number {
  const started = performance.now();
  const harnessAtStart = harnessMs?.() ?? 0;
  return () => performance.now() - started - ((harnessMs?.() ?? 0) - harnessAtStart);
}

/**
 * Calls `expire` once `timeoutMs` of the agent's own time (`own`) passed: when the timer fires, the harness's time
 * is given back and the timer set again for what is left. Returns the stop.
 */
function agentDeadline(timeoutMs: number, own: () => number, expire: () => void): () => void {
  let timer: ReturnType<typeof setTimeout>;
  const check = () => {
    const spent = own();
    if (spent >= timeoutMs) expire();
    else timer = setTimeout(check, Math.max(timeoutMs - spent, 1));
  };
  timer = setTimeout(check, timeoutMs);
  return () => clearTimeout(timer);
}

// The abort reason of a timed-out call: a plain object, because an Error would capture a stack on every call.
const TIMED_OUT = Object.freeze({ name: 'TimeoutError', message: 'the per-call timeout elapsed' });

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'the agent call failed';
  if (error.name === 'AgentError') return error.message;
  // fetch failures hide the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = (error as Error & { cause?: { code?: unknown } }).cause;
  const code = cause && typeof cause === 'object' && typeof cause.code === 'string' ? ` (${cause.code})` : '';
  return `the agent call failed: ${error.message.slice(0, 300)}${code}`;
}

/**
 * Calls the adapter. Resolves with the reply or a classified failure; rejects only when `parent` aborted
 * (cancellation or shutdown), with the parent's reason.
 */
export async function callAgent(
  adapter: AgentAdapter,
  input: string,
  context: Omit<AgentCallContext, 'signal'>,
  { timeoutMs, parent, harnessMs }: CallOptions,
): Promise<CallResult> {
  if (parent.aborted) throw parent.reason;
  if (adapter.idempotent) return callInProcess(adapter, input, context, { timeoutMs, parent, harnessMs });
  const deadline = new AbortController();
  // The call's signal follows the task's without a listener on it: that signal is the run's, shared by every
  // call in flight (16 at once in a per_task run), and a listener per call on it was the server log's
  // MaxListenersExceededWarning.
  const signal = AbortSignal.any([parent, deadline.signal]);
  let rejectOnAbort!: (reason: unknown) => void;
  const aborted = new Promise<never>((_, reject) => (rejectOnAbort = reject));
  const onAbort = () => rejectOnAbort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const own = ownClock(harnessMs);
  const stopDeadline = agentDeadline(timeoutMs, own, () => deadline.abort(TIMED_OUT));
  try {
    // The race stops waiting for an adapter that ignores its signal.
    const reply = await Promise.race([adapter.call(input, { ...context, signal }), aborted]);
    return replyResult(reply, own());
  } catch (error) {
    const latency = own();
    if (parent.aborted) throw parent.reason;
    // The SSRF guard has its own deadline (the adapter passes the same `timeout_ms`): a TimeoutError either way.
    if (signal.reason === TIMED_OUT || (error as Error)?.name === 'TimeoutError') {
      return { failure: { code: 'agent_timeout', failure_code: 'INFRA.AGENT_TIMEOUT', message: `the agent did not answer within ${timeoutMs} ms` }, latency_ms: latency };
    }
    if (isProblem(error) && error.code === 'ssrf_blocked') {
      return { failure: { code: 'ssrf_blocked', failure_code: 'INFRA.SSRF_BLOCKED', message: `the agent address was refused: ${error.detail}` }, latency_ms: latency };
    }
    return { failure: { code: 'agent_error', failure_code: 'INFRA.AGENT_ERROR', message: describe(error) }, latency_ms: latency };
  } finally {
    stopDeadline();
    signal.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
  }
}

/** A reply as a call result: its own latency when the agent reported one, else the measured one. */
function replyResult(reply: AgentReply | undefined, latency: number): CallResult {
  if (!reply || typeof reply.output !== 'string') {
    return { failure: { code: 'agent_error', failure_code: 'INFRA.AGENT_ERROR', message: 'the adapter returned no string output' }, latency_ms: latency };
  }
  const latencyMs = typeof reply.latency_ms === 'number' ? reply.latency_ms : latency;
  if (reply.usage === undefined && reply.model === undefined && reply.requests === undefined) return { reply, latency_ms: latencyMs };
  // Any adapter's report passes the same checks as the built-in ones': a malformed one is dropped, never trusted.
  const { usage: reported, model: named, requests: sent, ...rest } = reply;
  const usage = usageOf(reported);
  const model = modelOf(named);
  const requests = requestsOf(sent);
  return { reply: { ...rest, ...(usage ? { usage } : {}), ...(model ? { model } : {}), ...(requests ? { requests } : {}) }, latency_ms: latencyMs };
}

/**
 * The same for in-process idempotent adapters, without a controller per call (measurable at thousands of calls
 * a second): the adapter gets the task's own signal, and the timeout stops the engine waiting; an adapter that
 * runs on after it has no side effect to undo.
 */
async function callInProcess(adapter: AgentAdapter, input: string, context: Omit<AgentCallContext, 'signal'>, { timeoutMs, parent, harnessMs }: CallOptions): Promise<CallResult> {
  let stopDeadline: (() => void) | undefined;
  const own = ownClock(harnessMs);
  try {
    const reply = await Promise.race([
      adapter.call(input, { ...context, signal: parent }),
      new Promise<never>((_, reject) => (stopDeadline = agentDeadline(timeoutMs, own, () => reject(TIMED_OUT)))),
    ]);
    return replyResult(reply, own());
  } catch (error) {
    const latency = own();
    if (parent.aborted) throw parent.reason;
    if (error === TIMED_OUT) return { failure: { code: 'agent_timeout', failure_code: 'INFRA.AGENT_TIMEOUT', message: `the agent did not answer within ${timeoutMs} ms` }, latency_ms: latency };
    return { failure: { code: 'agent_error', failure_code: 'INFRA.AGENT_ERROR', message: describe(error) }, latency_ms: latency };
  } finally {
    stopDeadline?.();
  }
}
