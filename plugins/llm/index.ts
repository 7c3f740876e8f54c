/**
 * The operator's language-model provider (`AEH_LLM_BASE_URL`, `AEH_LLM_MODEL`, `AEH_LLM_API_KEY`), provided in
 * the `llm` service slot for the LLM judge, the user simulator, LLM mutators, spec-to-eval and explain. Absent
 * configuration leaves the slot empty, and those features say so instead of guessing.
 */
import type { Plugin } from '../../core/plugin.ts';
import { createLlmClient } from './client.ts';

export default {
  name: 'llm',
  enabled: (host) => Boolean(host.config.llm.baseUrl && host.config.llm.model),
  setup(host) {
    const { baseUrl, apiKey, model } = host.config.llm;
    host.provide('llm', (services) => createLlmClient({ baseUrl: baseUrl!, apiKey, model: model!, fetch: services.trustedFetch }));
  },
} satisfies Plugin;
