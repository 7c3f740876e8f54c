/**
 * The redactor: the one redaction every excerpt of agent output, tool arguments and results, world state and
 * metric evidence passes before it leaves the service (explain, the console, the evidence files, the CLI's
 * JUnit and Markdown reports). It masks the canaries a scenario plants, credential-shaped secrets and personal
 * data, before any truncation, so a cut never shows part of a secret. The plugin that owns the detectors (the
 * bundled `metrics` plugin) provides it in the `redactor` service slot (`services.use('redactor')`).
 */
import type { Scenario, ScenarioTask } from './domain/scenario.ts';

/** What the values never to repeat are drawn from. */
export interface RedactionScope {
  /** A task: the canaries its metrics plant (`secret_leak` `canaries`, `prompt_injection` `system_prompt_canaries`). */
  task?: ScenarioTask;
  /** A scenario: the canaries of every one of its tasks (an event of one task may repeat another's). */
  scenario?: Scenario;
  /** Further values never to repeat. */
  secrets?: readonly string[];
}

/** Options of `Redactor.excerpt`. */
export interface ExcerptOptions extends RedactionScope {
  /** The longest excerpt, in characters, the ellipsis included (default 200). */
  max?: number;
}

export interface Redactor {
  /** `text` with every canary, credential and personal-data value masked; nothing is cut. */
  text(text: string, scope?: RedactionScope): string;
  /** A one-line excerpt of at most `max` characters: masked first, then cut, with `…` when cut. */
  excerpt(text: string, options?: ExcerptOptions): string;
  /** A JSON value with every string (and key) masked, and the values of credential-named keys masked whole. */
  value<T>(value: T, scope?: RedactionScope): T;
}
