/**
 * The `openai` agent adapter (api-contract.md "Built-in agent adapters"): any OpenAI-compatible
 * chat-completions endpoint (`POST {base_url}/chat/completions`), tool calls included. The key is read from the
 * environment variable named by `api_key_env`, never from the scenario, and only from the variables the
 * operator listed in `AEH_AGENT_KEY_ENVS`, bound to the endpoint's host (`NAME@host`) or, listed bare, for
 * agents of the registry. When the scenario enables world shims, their actions are offered as
 * `tools` (function calling, named `shim__action`); the model's calls run against the task's world and the
 * results (or errors) go back as `tool` messages, for up to `max_tool_rounds` rounds (default 8): as JSON, or with
 * `tool_output: "text"` a string result as it is and an error as its message (AgentDojo's agent reads its tools'
 * YAML text and `"ValueError: …"` that way, and a call of a tool the world lacks reads `Invalid tool NAME provided.`
 * and the model is asked again). Other tools
 * (`tools` in the agent spec) answer from `tool_results` when it scripts one; a call nobody can answer ends
 * the conversation with the model's text so far. The reply carries the token `usage` the endpoint reported
 * (summed over tool rounds) and the model asked for, which is what a price table names.
 */
import type { Plugin } from '../../core/plugin.ts';
import { Problem } from '../../core/problems.ts';
import { AgentError, type AgentAdapter, type AgentCheckContext, type ToolCall } from '../../core/agent-adapter.ts';
import { readAgentJson } from '../../core/guards/agent-response.ts';
import { parseAgentJson } from '../../core/guards/json-depth.ts';
import { AGENT_VARIABLE_NAME, agentKeyVariablesOf, agentVariableRefusal } from '../../core/guards/agent-environment.ts';
import type { AgentSpec } from '../../core/domain/scenario.ts';
import { sumUsage, usageOf, type TokenUsage } from '../../core/domain/usage.ts';

const OPTIONS = {
  type: 'object',
  required: ['base_url', 'model'],
  properties: {
    base_url: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    api_key_env: { type: 'string', pattern: AGENT_VARIABLE_NAME },
    system: { type: 'string', maxLength: 100_000 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    tools: { type: 'array', maxItems: 128, items: { type: 'object' } },
    tool_results: { type: 'object' },
    max_tool_rounds: { type: 'integer', minimum: 0, maximum: 16 },
    tool_output: { enum: ['json', 'text'], description: 'json (default): each tool message is the result (or {"error": …}) as JSON; text: a string result as it is, an error as its message, a tool the world lacks answered "Invalid tool NAME provided."' },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 64 * 1024 * 1024 },
  },
};

async function checkSpec(spec: AgentSpec, { env, checkUrl }: AgentCheckContext): Promise<void> {
  checkUrl(spec.base_url, '/agent/base_url');
  const name = spec.api_key_env;
  if (typeof name !== 'string') return;
  const refusal = agentVariableRefusal(name, env, true, spec.base_url);
  if (refusal) throw new Problem('validation_failed', { detail: `agent.api_key_env "${name}" ${refusal}`, errors: [{ path: '/agent/api_key_env', message: refusal }] });
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A tool call's arguments string as JSON (nested past the depth limit: pruned, and refused by the world). */
function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return parseAgentJson(raw);
  } catch {
    return raw;
  }
}

/** A tool message's content: the outcome as JSON, or (`text`) a string result as it is and an error's message. */
function toolMessage(outcome: { result: unknown } | { error: unknown }, format: unknown): string {
  if (format === 'text') {
    if ('error' in outcome) return String((outcome.error as { message?: unknown })?.message ?? '');
    if (typeof outcome.result === 'string') return outcome.result;
  }
  return JSON.stringify('error' in outcome ? { error: outcome.error } : outcome.result);
}

/** The openai adapter. */
export const openaiAdapter: AgentAdapter = {
  name: 'openai',
  description: 'Any OpenAI-compatible chat-completions endpoint, tool calls included.',
  options: OPTIONS,
  check: checkSpec,
  async call(input, { scenario, spec, history, fetch, env, signal, tools }) {
    const endpoint = `${String(spec.base_url).replace(/\/+$/, '')}/chat/completions`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (typeof spec.api_key_env === 'string') {
      const refusal = agentVariableRefusal(spec.api_key_env, env, false, endpoint);
      if (refusal) throw new AgentError(`agent.api_key_env "${spec.api_key_env}" ${refusal}`);
      const key = env[spec.api_key_env];
      if (key) headers.authorization = `Bearer ${key}`;
    }
    const messages: ChatMessage[] = [];
    // The scenario's instructions (a domain policy) first, then the spec's own system prompt.
    const system = [scenario.instructions, typeof spec.system === 'string' ? spec.system : undefined].filter((part): part is string => Boolean(part)).join('\n\n');
    if (system) messages.push({ role: 'system', content: system });
    for (const turn of history) if (turn.role !== 'tool') messages.push({ role: turn.role, content: turn.content });
    messages.push({ role: 'user', content: input });
    const toolResults = (spec.tool_results ?? {}) as Record<string, unknown>;
    const maxRounds = typeof spec.max_tool_rounds === 'number' ? spec.max_tool_rounds : tools ? 8 : 4;
    const offered = [
      ...(Array.isArray(spec.tools) ? spec.tools : []),
      ...(tools?.list ?? []).map((tool) => ({ type: 'function', function: { name: tool.function_name, description: tool.description.slice(0, 1024), parameters: tool.parameters } })),
    ];
    const toolCalls: ToolCall[] = [];
    // Every round is a request the provider bills; the call's usage is their sum (usage.ts says when it has none).
    const usage: Array<TokenUsage | undefined> = [];
    for (let round = 0; ; round++) {
      const body: Record<string, unknown> = { model: spec.model, messages };
      if (typeof spec.temperature === 'number') body.temperature = spec.temperature;
      if (offered.length > 0) body.tools = offered;
      const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal, ...(typeof spec.timeout_ms === 'number' ? { timeoutMs: spec.timeout_ms } : {}) });
      const payload = (await readAgentJson(response, 'the chat-completions endpoint', typeof spec.max_response_bytes === 'number' ? spec.max_response_bytes : undefined)) as {
        choices?: Array<{ message?: ChatMessage }>;
        usage?: unknown;
      };
      usage.push(usageOf(payload?.usage));
      const message = payload?.choices?.[0]?.message;
      if (!message || typeof message !== 'object') throw new AgentError('the chat-completions endpoint answered without choices[0].message');
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      const replies: string[] = [];
      let answerable = calls.length > 0 && round < maxRounds;
      for (const call of calls) {
        const name = String(call?.function?.name ?? '');
        const args = parseArguments(call?.function?.arguments);
        if (answerable && tools?.has(name)) {
          // The world records the call and its state change; the reply lists it for the adapter's own record.
          const outcome = await tools.call(name, args);
          toolCalls.push({ name, arguments: args, result: 'error' in outcome ? { error: outcome.error } : outcome.result, executed: true });
          replies.push(toolMessage(outcome, spec.tool_output));
        } else if (Object.hasOwn(toolResults, name)) {
          toolCalls.push({ name, arguments: args, result: toolResults[name] });
          replies.push(JSON.stringify(toolResults[name]));
        } else if (answerable && spec.tool_output === 'text' && tools) {
          // AgentDojo's ToolsExecutor: a tool the world does not have is answered, and the model asked again.
          toolCalls.push({ name, arguments: args, result: { error: `Invalid tool ${name} provided.` } });
          replies.push(`Invalid tool ${name} provided.`);
        } else {
          toolCalls.push({ name, arguments: args });
          answerable = false;
        }
      }
      if (!answerable) {
        const reported = sumUsage(usage);
        // Priced by the model asked for, the name a price table holds (a provider may answer with a dated snapshot).
        // One request per round: usage.requests of the run counts them (a call is one answer, however many rounds).
        return { output: typeof message.content === 'string' ? message.content : '', ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(reported ? { usage: reported } : {}), model: String(spec.model), ...(round > 0 ? { requests: round + 1 } : {}) };
      }
      messages.push({ role: 'assistant', content: message.content ?? null, tool_calls: calls });
      calls.forEach((call, index) => messages.push({ role: 'tool', tool_call_id: call.id, content: replies[index] }));
    }
  },
};

export default {
  name: 'agent-openai',
  setup(host) {
    const { refused, invalid } = agentKeyVariablesOf(host.config);
    if (invalid.length > 0) throw new Error(`agent-openai: AEH_AGENT_KEY_ENVS entries ${invalid.map((entry) => `"${entry.slice(0, 80)}"`).join(', ')} are neither NAME nor NAME@host (host, *.domain, IP or CIDR, optional :port)`);
    if (refused.length > 0) {
      throw new Error(`agent-openai: AEH_AGENT_KEY_ENVS lists ${refused.join(', ')}, a variable of the service, its signers, Redis or OIDC; `
        + 'agents never receive those: remove it and give the agent a key variable of its own');
    }
    host.agents.register(openaiAdapter, 'agent-openai');
  },
} satisfies Plugin;
