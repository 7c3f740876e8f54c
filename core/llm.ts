/**
 * The configured language-model provider (an OpenAI-compatible chat-completions endpoint set by the operator
 * through `AEH_LLM_*`). Used by spec-to-eval fallback, the LLM judge, mutators and explain narratives.
 */

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  messages: LlmMessage[];
  /** A JSON Schema the answer must follow (`response_format: json_schema`). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  signal?: AbortSignal;
}

export interface LlmClient {
  readonly model: string;
  complete(request: LlmRequest): Promise<string>;
}
