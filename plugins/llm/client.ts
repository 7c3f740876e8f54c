/**
 * A client for the operator's OpenAI-compatible chat-completions provider (`AEH_LLM_BASE_URL`,
 * `AEH_LLM_API_KEY`, `AEH_LLM_MODEL`). The URL is operator-set, so it is trusted and not SSRF-guarded.
 */
import { Problem } from '../../core/problems.ts';
import type { LlmAnswer, LlmClient, LlmMessage, LlmRequest, LlmToolCall } from '../../core/llm.ts';

export interface LlmClientOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  fetch: typeof fetch;
  /** Per-call time limit in milliseconds (default 30 s). */
  timeoutMs?: number;
}

/** OpenAI's wire form of a message: tool calls with their arguments as JSON text. */
function wireMessage(message: LlmMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
  if (!message.tool_calls?.length) return { role: message.role, content: message.content };
  return { role: message.role, content: message.content || null, tool_calls: message.tool_calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) };
}

type WireAnswer = { choices?: Array<{ message?: { content?: string | null; tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }> } }> };

/** The tool calls of an answer, their arguments parsed; a call whose arguments are no JSON object gets `{}` (the world then refuses it). */
function toolCallsOf(message: NonNullable<NonNullable<WireAnswer['choices']>[number]['message']>): LlmToolCall[] {
  return (message.tool_calls ?? []).filter((call) => typeof call.function?.name === 'string').map((call, index) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.function!.arguments || '{}');
    } catch {
      parsed = {};
    }
    return { id: call.id ?? `call_${index}`, name: call.function!.name!, arguments: parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {} };
  });
}

/** Builds the client; answers from the provider that are not usable become 503 `unavailable`. */
export function createLlmClient({ baseUrl, apiKey, model, fetch: doFetch, timeoutMs = 30_000 }: LlmClientOptions): LlmClient {
  const endpoint = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  async function send(request: LlmRequest): Promise<NonNullable<NonNullable<WireAnswer['choices']>[number]['message']>> {
    const body: Record<string, unknown> = { model, messages: request.messages.map(wireMessage), temperature: request.temperature ?? 0 };
    if (request.jsonSchema) {
      body.response_format = { type: 'json_schema', json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: true } };
    }
    if (request.tools?.length) body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : 'could not be reached';
      throw new Problem('unavailable', { detail: `the language-model provider ${reason}`, cause: error });
    }
    if (!response.ok) {
      const retryAfter = response.headers.get('retry-after');
      throw new Problem('unavailable', {
        detail: `the language-model provider answered ${response.status}`,
        headers: retryAfter ? { 'Retry-After': retryAfter } : {},
      });
    }
    const payload = (await response.json().catch(() => null)) as WireAnswer | null;
    const message = payload?.choices?.[0]?.message;
    if (!message) throw new Problem('unavailable', { detail: 'the language-model provider answered without message content' });
    return message;
  }
  return {
    model,
    async complete(request: LlmRequest): Promise<string> {
      const message = await send(request);
      if (typeof message.content !== 'string') throw new Problem('unavailable', { detail: 'the language-model provider answered without message content' });
      return message.content;
    },
    async chat(request: LlmRequest): Promise<LlmAnswer> {
      const message = await send(request);
      const calls = toolCallsOf(message);
      if (typeof message.content !== 'string' && calls.length === 0) throw new Problem('unavailable', { detail: 'the language-model provider answered without message content or tool calls' });
      return { content: message.content ?? '', ...(calls.length ? { tool_calls: calls } : {}) };
    },
  };
}
