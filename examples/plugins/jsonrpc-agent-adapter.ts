/**
 * Example agent adapter plugin: `jsonrpc` calls an agent that speaks JSON-RPC 2.0 over HTTP
 * (https://www.jsonrpc.org/specification). Each task becomes one request,
 *
 *   {"jsonrpc": "2.0", "id": "<run>:<task>", "method": "agent.respond", "params": {"input", "history", "task_id"}}
 *
 * and the agent answers `{"jsonrpc": "2.0", "id", "result": {"output": "..."}}` or a JSON-RPC `error`.
 *
 * What every adapter owes the engine: requests go through `context.fetch` (the SSRF guard) with
 * `context.signal` (cancellation and the per-call timeout); `check` refuses an unreachable URL when the scenario
 * is submitted; an answer that is not usable throws `AgentError`, whose message ends up in the trace, so it
 * never repeats a header or key.
 *
 * A scenario selects it with `"agent": {"adapter": "jsonrpc", "url": "https://agents.example/rpc"}`.
 */
import { AgentError, readAgentJson, type AgentAdapter, type Plugin } from '../../core/plugin-api.ts';

/** The answer of a JSON-RPC agent, as far as this adapter reads it. */
interface RpcAnswer {
  result?: { output?: unknown };
  error?: { code?: unknown; message?: unknown };
}

export const jsonRpcAdapter: AgentAdapter = {
  name: 'jsonrpc',
  description: 'Calls an agent that speaks JSON-RPC 2.0 over HTTP: method agent.respond, result {output}.',
  options: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', pattern: '^https?://', maxLength: 2048 },
      method: { type: 'string', minLength: 1, maxLength: 200, default: 'agent.respond' },
      timeout_ms: { type: 'integer', minimum: 1, maximum: 600_000 },
    },
  },
  async check(spec, { checkUrl }) {
    checkUrl(spec.url, '/agent/url');
  },
  async call(input, { run_id, task, spec, history, fetch, signal }) {
    const response = await fetch(String(spec.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: `${run_id}:${task.id}`, method: spec.method ?? 'agent.respond', params: { input, history, task_id: task.id } }),
      signal,
      ...(typeof spec.timeout_ms === 'number' ? { timeoutMs: spec.timeout_ms } : {}),
    });
    const answer = (await readAgentJson(response, 'the JSON-RPC agent')) as RpcAnswer | null;
    if (answer?.error) {
      const message = typeof answer.error.message === 'string' ? answer.error.message.slice(0, 200) : 'no message';
      throw new AgentError(`the JSON-RPC agent answered error ${String(answer.error.code)}: ${message}`);
    }
    if (typeof answer?.result?.output !== 'string') throw new AgentError('the JSON-RPC agent answered without a string result.output');
    return { output: answer.result.output };
  },
};

export default {
  name: 'example-jsonrpc-agent',
  version: '1.0.0',
  setup(host) {
    host.agents.register(jsonRpcAdapter, 'example-jsonrpc-agent');
  },
} satisfies Plugin;
