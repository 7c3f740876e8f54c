/**
 * The conversion as an offload job (`core/capabilities.ts` `Offload`): runs in a worker, so a PRD that is costly
 * to parse holds a worker, not the service. The language-model fallback needs the service's provider client,
 * which cannot cross into a worker: when a document needs it, the worker says so and the route converts that
 * document on the request thread with the client (the parse that already fitted the budget, then the calls).
 */
import type { LlmClient } from '../../core/llm.ts';
import { convertSpec, type ConversionResult } from './convert.ts';

/** URL of this module, for `Offload.run`. */
export const CONVERT_WORKER_MODULE = import.meta.url;

/** What the route sends the worker. */
export interface ConvertJob {
  source: string;
  registeredMetrics: string[];
  /** Whether a provider is configured: conversion decisions (rubrics scored by `llm_judge`) depend on it. */
  llmConfigured: boolean;
  /** Whether the provider proposes missing expectations and metrics (`enrich`, default true). */
  enrich?: boolean;
}

/** The stubs, or word that the document needs the language-model fallback. */
export type ConvertJobResult = { result: ConversionResult } | { needsLlm: true };

const NEEDS_LLM = 'spec-to-eval: the fallback needs the provider';

/** Stands in for the provider in the worker: any call means the document needs the real one. */
const deferredLlm: LlmClient = {
  model: 'deferred',
  complete: () => Promise.reject(Object.assign(new Error(NEEDS_LLM), { deferred: true })),
};

/** Converts a PRD in a worker; a `Problem` it throws (422 pitfalls) reaches the route as it was. */
export async function convertInWorker(job: ConvertJob): Promise<ConvertJobResult> {
  try {
    return { result: await convertSpec(job.source, { llm: job.llmConfigured ? deferredLlm : undefined, registeredMetrics: job.registeredMetrics, enrich: job.enrich }) };
  } catch (error) {
    if ((error as Error)?.message === NEEDS_LLM || (error as { cause?: Error })?.cause?.message === NEEDS_LLM) return { needsLlm: true };
    throw error;
  }
}
