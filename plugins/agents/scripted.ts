/**
 * The `scripted` agent adapter (api-contract.md "Built-in agent adapters"): answers each task from
 * `replies[<task id>]`, else `replies["*"]`, deterministic and offline. A reply is text or
 * `{output, tool_calls?, handoffs?}`; `delay_ms` simulates a slow agent (and honours cancellation). When the
 * scenario enables world shims, scripted tool calls naming their actions run against the task's world, in
 * order, and the world's answers replace any scripted `result`: a scripted agent then exercises real state.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { AgentAdapter, AgentReply } from '../../core/agent-adapter.ts';

const REPLY = {
  oneOf: [
    { type: 'string' },
    {
      type: 'object',
      required: ['output'],
      properties: {
        output: { type: 'string' },
        tool_calls: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        handoffs: { type: 'array', items: { type: 'object', required: ['from', 'to', 'content'] } },
      },
    },
  ],
};

const OPTIONS = {
  type: 'object',
  properties: {
    replies: { type: 'object', additionalProperties: REPLY },
    delay_ms: { type: 'integer', minimum: 0, maximum: 600_000 },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
  },
};

type ScriptedReply = string | AgentReply;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The scripted adapter. */
export const scriptedAdapter: AgentAdapter = {
  name: 'scripted',
  description: 'Answers every task from a fixed table of replies (offline, deterministic).',
  options: OPTIONS,
  idempotent: true,
  async call(_input, { spec, task, signal, tools }) {
    const delay = typeof spec.delay_ms === 'number' ? spec.delay_ms : 0;
    if (delay > 0) await sleep(delay, signal);
    const replies = (spec.replies ?? {}) as Record<string, ScriptedReply>;
    const reply = replies[task.id] ?? replies['*'] ?? '';
    if (typeof reply === 'string') return { output: reply };
    const toolCalls = [];
    for (const call of reply.tool_calls ?? []) {
      if (!tools?.has(call.name)) {
        toolCalls.push(call);
        continue;
      }
      const outcome = await tools.call(call.name, call.arguments ?? {});
      toolCalls.push({ name: call.name, arguments: call.arguments ?? {}, result: 'error' in outcome ? { error: outcome.error } : outcome.result, executed: true });
    }
    return { ...reply, ...(reply.tool_calls ? { tool_calls: toolCalls } : {}), output: String(reply.output ?? '') };
  },
};

export default {
  name: 'agent-scripted',
  setup(host) {
    host.agents.register(scriptedAdapter, 'agent-scripted');
  },
} satisfies Plugin;
