/**
 * Test kit of the judge-backed metrics (llm_judge, nl_assertions): an msw server standing in for an
 * OpenAI-compatible judge at `JUDGE_ENDPOINT`, refusing any request it has no handler for, and the LLM client the
 * metrics are given. Under test/ so it is never built into dist/.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { setupServer } from 'msw/node';
import { HttpResponse } from 'msw';
import { createLlmClient } from '../plugins/llm/client.ts';

export const JUDGE_ENDPOINT = 'http://llm.test/v1/chat/completions';

/** The judge's server for this test file: listening for the file's tests, reset after each. */
export function judgeServer() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** The client a metric gets: model `judge-1`, through the global fetch msw intercepts. */
export const judgeClient = () => createLlmClient({ baseUrl: 'http://llm.test/v1', model: 'judge-1', apiKey: 'test-key', fetch: (input, init) => fetch(input, init) });

/** A chat completion whose message is `content`. */
export const judgeAnswer = (content: string) => HttpResponse.json({ choices: [{ message: { role: 'assistant', content } }] });
