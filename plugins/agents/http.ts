/**
 * The `http` agent adapter (api-contract.md "Built-in agent adapters"): POSTs
 * `{run_id, task_id, input, history}` (with the scenario's `instructions`, and `variant` and `trial` when the call
 * belongs to one) to the agent's `url` and reads `{output, tool_calls?}`, and the `usage`
 * (OpenAI or `input_tokens`/`output_tokens` shape) and `model` an agent may report, for the run's totals and
 * cost. The URL comes from a scenario or a request, so the call goes through the SSRF guard (`context.fetch`).
 *
 * With world shims enabled, the request also carries `tools` (name, function_name, description, JSON Schema
 * parameters). An answer with `tool_calls` and no `output` asks the harness to run them: it does, against the
 * task's world, and POSTs again with every result so far in `tool_results` (`[{id, name, arguments, result}` or
 * `error}]`) and `round`, until the agent gives its final `output` or `max_tool_rounds` (default 8) is spent.
 * It also carries `mcp: {url, token}`: the same world as an MCP server, for an agent that speaks MCP instead.
 * Secret headers are named, not written: `header_envs: {authorization: "SUPPORT_BOT_TOKEN"}` sends the value of
 * that variable, which `AEH_AGENT_KEY_ENVS` must list, bound to the agent's host (`NAME@host`) or bare for
 * agents of the registry (as for the openai adapter's `api_key_env`).
 */
import type { Plugin } from '../../core/plugin.ts';
import { AgentError, type AgentAdapter, type AgentReply, type ToolCall } from '../../core/agent-adapter.ts';
import { readAgentJson } from '../../core/guards/agent-response.ts';
import { AGENT_VARIABLE_NAME, agentVariableRefusal } from '../../core/guards/agent-environment.ts';
import { Problem } from '../../core/problems.ts';
import { modelOf, sumUsage, usageOf, type TokenUsage } from '../../core/domain/usage.ts';

const OPTIONS = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    // Secret headers come from the environment: `{"authorization": "SUPPORT_BOT_TOKEN"}` sends that variable's value.
    header_envs: { type: 'object', maxProperties: 16, propertyNames: { pattern: '^[A-Za-z0-9-]{1,64}$' }, additionalProperties: { type: 'string', pattern: AGENT_VARIABLE_NAME } },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 64 * 1024 * 1024 },
    max_tool_rounds: { type: 'integer', minimum: 0, maximum: 32 },
  },
};

/** One executed tool call as the agent gets it back. */
interface ToolResult {
  id?: string;
  name: string;
  arguments: unknown;
  result?: unknown;
  error?: { code: string; message: string };
}

/** Turns the agent's answer into a reply, refusing shapes the contract does not describe. */
export function replyFromBody(body: unknown, what: string): AgentReply {
  if (!body || typeof body !== 'object' || typeof (body as { output?: unknown }).output !== 'string') {
    throw new AgentError(`${what} answered without a string "output"${Array.isArray((body as { tool_calls?: unknown })?.tool_calls) ? ' (tool calls without an output are answered only when the scenario enables shims)' : ''}`);
  }
  const answer = body as { output: string; tool_calls?: unknown; handoffs?: unknown; signature?: unknown };
  const reply: AgentReply = { output: answer.output };
  if (Array.isArray(answer.tool_calls)) {
    reply.tool_calls = answer.tool_calls
      .filter((call): call is ToolCall => !!call && typeof call === 'object' && typeof (call as ToolCall).name === 'string')
      .map((call) => ({ name: call.name, arguments: call.arguments, result: call.result }));
  }
  if (Array.isArray(answer.handoffs)) reply.handoffs = answer.handoffs as AgentReply['handoffs'];
  if ((answer as { end_conversation?: unknown }).end_conversation === true) reply.end_conversation = true;
  const signature = answer.signature as { identity?: unknown; jws?: unknown } | undefined;
  if (signature && typeof signature.identity === 'string' && typeof signature.jws === 'string') reply.signature = { identity: signature.identity, jws: signature.jws };
  const model = modelOf((answer as { model?: unknown }).model);
  if (model) reply.model = model;
  return reply;
}

/** The http adapter. */
export const httpAdapter: AgentAdapter = {
  name: 'http',
  description: 'POSTs each task to an HTTP agent and reads its JSON answer.',
  options: OPTIONS,
  async check(spec, { checkUrl, env }) {
    checkUrl(spec.url, '/agent/url');
    for (const [header, variable] of Object.entries((spec.header_envs ?? {}) as Record<string, string>)) {
      const refusal = agentVariableRefusal(variable, env, true, spec.url);
      if (refusal) throw new Problem('validation_failed', { detail: `agent.header_envs.${header} "${variable}" ${refusal}`, errors: [{ path: `/agent/header_envs/${header}`, message: refusal }] });
    }
  },
  async call(input, { run_id, scenario, task, spec, history, fetch, signal, variant, trial, tools, mcp, env }) {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    for (const [name, value] of Object.entries((spec.headers ?? {}) as Record<string, string>)) headers[name.toLowerCase()] = value;
    for (const [name, variable] of Object.entries((spec.header_envs ?? {}) as Record<string, string>)) {
      const refusal = agentVariableRefusal(variable, env, false, spec.url);
      if (refusal) throw new AgentError(`agent.header_envs.${name} "${variable}" ${refusal}`);
      const value = env[variable];
      if (value) headers[name.toLowerCase()] = value;
    }
    const offered = tools?.list.map((tool) => ({ name: tool.name, function_name: tool.function_name, description: tool.description, parameters: tool.parameters }));
    const maxRounds = typeof spec.max_tool_rounds === 'number' ? spec.max_tool_rounds : 8;
    const results: ToolResult[] = [];
    // Each round's answer may report its own `usage`; the call's is their sum (usage.ts: never a partial one).
    const usage: Array<TokenUsage | undefined> = [];
    for (let round = 0; ; round++) {
      const request = { run_id, task_id: task.id, input, history, ...(scenario.instructions ? { instructions: scenario.instructions } : {}), ...(variant ? { variant } : {}), ...(trial !== undefined ? { trial } : {}), ...(offered ? { tools: offered } : {}), ...(mcp ? { mcp } : {}), ...(round > 0 ? { tool_results: results, round } : {}) };
      const response = await fetch(String(spec.url), {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal,
        ...(typeof spec.timeout_ms === 'number' ? { timeoutMs: spec.timeout_ms } : {}),
      });
      const body = await readAgentJson(response, 'the agent', typeof spec.max_response_bytes === 'number' ? spec.max_response_bytes : undefined) as { output?: unknown; tool_calls?: unknown; usage?: unknown };
      usage.push(usageOf(body?.usage));
      const asksForTools = tools && body && typeof body === 'object' && typeof body.output !== 'string' && Array.isArray(body.tool_calls) && body.tool_calls.length > 0;
      if (!asksForTools) {
        const reported = sumUsage(usage);
        // One request per round: usage.requests of the run counts them (a call is one answer, however many rounds).
        const reply = { ...replyFromBody(body, 'the agent'), ...(reported ? { usage: reported } : {}), ...(round > 0 ? { requests: round + 1 } : {}) };
        // Calls the harness ran are in the trace already (the world recorded them); the reply lists them too.
        // A call that failed is listed as executed too: recording it again would count it twice (issue 24 item 5).
        return results.length ? { ...reply, tool_calls: [...results.map(({ id: _id, error, result, ...call }) => ({ ...call, result: error ? { error } : result, executed: true })), ...(reply.tool_calls ?? [])] } : reply;
      }
      if (round >= maxRounds) throw new AgentError(`the agent asked for tools again after ${maxRounds} tool rounds (max_tool_rounds) without a final "output"`);
      for (const call of body.tool_calls as Array<{ id?: unknown; name?: unknown; arguments?: unknown }>) {
        const name = typeof call?.name === 'string' ? call.name : '';
        const outcome = await tools.call(name, call?.arguments ?? {});
        results.push({ ...(typeof call?.id === 'string' ? { id: call.id } : {}), name, arguments: call?.arguments ?? {}, ...outcome });
      }
    }
  },
};

export default {
  name: 'agent-http',
  setup(host) {
    host.agents.register(httpAdapter, 'agent-http');
  },
} satisfies Plugin;
