/**
 * A client for the operator's OpenAI-compatible chat-completions provider (`AEH_LLM_BASE_URL`,
 * `AEH_LLM_API_KEY`, `AEH_LLM_MODEL`). The URL is operator-set, so it is trusted and not SSRF-guarded.
 */
import { Problem } from '../../core/problems.ts';
import type { LlmClient, LlmRequest } from '../../core/llm.ts';

export interface LlmClientOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  fetch: typeof fetch;
  /** Per-call time limit in milliseconds (default 30 s). */
  timeoutMs?: number;
}

/** Builds the client; answers from the provider that are not usable become 503 `unavailable`. */
export function createLlmClient({ baseUrl, apiKey, model, fetch: doFetch, timeoutMs = 30_000 }: LlmClientOptions): LlmClient {
  const endpoint = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    model,
    async complete(request: LlmRequest): Promise<string> {
      const body: Record<string, unknown> = { model, messages: request.messages, temperature: request.temperature ?? 0 };
      if (request.jsonSchema) {
        body.response_format = { type: 'json_schema', json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: true } };
      }
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
      const payload = (await response.json().catch(() => null)) as { choices?: Array<{ message?: { content?: string } }> } | null;
      const content = payload?.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new Problem('unavailable', { detail: 'the language-model provider answered without message content' });
      return content;
    },
  };
}
