/**
 * The configured language-model provider (an OpenAI-compatible chat-completions endpoint set by the operator
 * through `AEH_LLM_*`). Used by spec-to-eval fallback, the LLM judge, mutators, explain narratives and the
 * simulated user (which, in a scenario with `user_shims`, calls tools of its own through `chat`).
 */

/** A tool call the model asked for (OpenAI's `tool_calls[]`, the arguments parsed). */
export interface LlmToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** On an assistant message: the tools it called. */
  tool_calls?: LlmToolCall[];
  /** On a tool message: the call it answers. */
  tool_call_id?: string;
}

/** A tool offered to the model (OpenAI's `tools[].function`). */
export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema (type `object`) of the arguments. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: LlmMessage[];
  /** A JSON Schema the answer must follow (`response_format: json_schema`). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  signal?: AbortSignal;
  /** Tools the model may call instead of answering (`chat` only). */
  tools?: LlmTool[];
}

/** A chat answer: text, or tool calls (either may be empty). */
export interface LlmAnswer {
  content: string;
  tool_calls?: LlmToolCall[];
}

export interface LlmClient {
  readonly model: string;
  complete(request: LlmRequest): Promise<string>;
  /** One chat turn that may call `request.tools`; a client without it cannot give a simulated user tools. */
  chat?(request: LlmRequest): Promise<LlmAnswer>;
}
