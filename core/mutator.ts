/**
 * The mutator extension point: deterministic perturbations of a scenario's task inputs for variance and
 * robustness testing. A mutator changes inputs only; ids, expected values and metric settings stay intact.
 */
import type { LlmClient } from './llm.ts';

/** A seeded pseudo-random generator; mutators never use `Math.random`. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, max). */
  int(max: number): number;
  pick<T>(items: readonly T[]): T;
}

export interface MutatorContext {
  rng: Rng;
  /** Mutator options from the request (for example `rate`). */
  options: Record<string, unknown>;
  llm?: LlmClient;
  signal?: AbortSignal;
}

export interface Mutator {
  type: string;
  description: string;
  deterministic: boolean;
  /** Listed only when an LLM provider is configured. */
  requiresLlm?: boolean;
  mutate(text: string, context: MutatorContext): string | Promise<string>;
}

/** Applies the case pattern of `model` (UPPER, Capitalised or lower) to `word`. */
export function matchCase(model: string, word: string): string {
  if (model.length > 1 && model === model.toUpperCase() && model !== model.toLowerCase()) return word.toUpperCase();
  const first = model.charAt(0);
  if (first !== first.toLowerCase()) return word.charAt(0).toUpperCase() + word.slice(1);
  return word;
}
