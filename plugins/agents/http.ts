/**
 * The `http` agent adapter (api-contract.md "Built-in agent adapters"): POSTs
 * `{run_id, task_id, input, history}` to the agent's `url` and reads `{output, tool_calls?}`. The URL comes
 * from a scenario or a request, so the call goes through the SSRF guard (`context.fetch`).
 */
import type { Plugin } from '../../core/plugin.ts';
import { AgentError, readAgentJson, type AgentAdapter, type AgentReply, type ToolCall } from '../../core/agent-adapter.ts';

const OPTIONS = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 64 * 1024 * 1024 },
  },
};

/** Turns the agent's answer into a reply, refusing shapes the contract does not describe. */
export function replyFromBody(body: unknown, what: string): AgentReply {
  if (!body || typeof body !== 'object' || typeof (body as { output?: unknown }).output !== 'string') {
    throw new AgentError(`${what} answered without a string "output"`);
  }
  const answer = body as { output: string; tool_calls?: unknown; handoffs?: unknown; signature?: unknown };
  const reply: AgentReply = { output: answer.output };
  if (Array.isArray(answer.tool_calls)) {
    reply.tool_calls = answer.tool_calls
      .filter((call): call is ToolCall => !!call && typeof call === 'object' && typeof (call as ToolCall).name === 'string')
      .map((call) => ({ name: call.name, arguments: call.arguments, result: call.result }));
  }
  if (Array.isArray(answer.handoffs)) reply.handoffs = answer.handoffs as AgentReply['handoffs'];
  const signature = answer.signature as { identity?: unknown; jws?: unknown } | undefined;
  if (signature && typeof signature.identity === 'string' && typeof signature.jws === 'string') reply.signature = { identity: signature.identity, jws: signature.jws };
  return reply;
}

/** The http adapter. */
export const httpAdapter: AgentAdapter = {
  name: 'http',
  description: 'POSTs each task to an HTTP agent and reads its JSON answer.',
  options: OPTIONS,
  async check(spec, { checkUrl }) {
    checkUrl(spec.url, '/agent/url');
  },
  async call(input, { run_id, task, spec, history, fetch, signal, variant }) {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    for (const [name, value] of Object.entries((spec.headers ?? {}) as Record<string, string>)) headers[name.toLowerCase()] = value;
    const response = await fetch(String(spec.url), {
      method: 'POST',
      headers,
      body: JSON.stringify({ run_id, task_id: task.id, input, history, ...(variant ? { variant } : {}) }),
      signal,
      ...(typeof spec.timeout_ms === 'number' ? { timeoutMs: spec.timeout_ms } : {}),
    });
    const body = await readAgentJson(response, 'the agent', typeof spec.max_response_bytes === 'number' ? spec.max_response_bytes : undefined);
    return replyFromBody(body, 'the agent');
  },
};

export default {
  name: 'agent-http',
  setup(host) {
    host.agents.register(httpAdapter, 'agent-http');
  },
} satisfies Plugin;
