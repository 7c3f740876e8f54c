/**
 * The mutator extension point: deterministic perturbations of a scenario's task inputs for variance and
 * robustness testing. A mutator changes inputs only; ids, expected values and metric settings stay intact,
 * and so do the words of the input a task hinges on (`MutatorContext.protected`).
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

/** What a protected span of a task input holds (core/domain/protected-spans.ts). */
export type ProtectedKind = 'expected' | 'metric_param' | 'quoted' | 'url' | 'email' | 'number' | 'code' | 'name' | 'harm_term';

/** A span of the text a mutator must leave exactly as it is: `text.slice(start, end)`. */
export interface ProtectedSpan {
  start: number;
  end: number;
  kind: ProtectedKind;
}

export interface MutatorContext {
  rng: Rng;
  /**
   * The spans of `text` the mutator must leave as they are: the words the task hinges on (harm terms, numbers,
   * names, quoted text, URLs, the task's expected values and the strings its metrics look for). A mutator that
   * edits in place sees each one as a single placeholder character; a `wholeMessage` mutator sees the text as
   * it is and these spans in it. Absent when the mutator is called outside `mutateScenario`.
   */
  protected?: readonly ProtectedSpan[];
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
  /**
   * The mutator transforms the message as a whole (encodes, wraps, translates or rewrites it) instead of editing
   * words in place. It then gets the text as it is, with `context.protected` naming what must survive; otherwise
   * (the default) each protected span is hidden behind one placeholder character it cannot edit.
   */
  wholeMessage?: boolean;
  mutate(text: string, context: MutatorContext): string | Promise<string>;
}

/** Applies the case pattern of `model` (UPPER, Capitalised or lower) to `word`. */
export function matchCase(model: string, word: string): string {
  if (model.length > 1 && model === model.toUpperCase() && model !== model.toLowerCase()) return word.toUpperCase();
  const first = model.charAt(0);
  if (first !== first.toLowerCase()) return word.charAt(0).toUpperCase() + word.slice(1);
  return word;
}
