/**
 * A scenario format: a kind of document, other than the native scenario, that the service accepts wherever it
 * accepts a scenario (`POST /api/evaluate`, `POST /api/v1/mutate`, catalog folders). A plugin registers one with
 * `host.scenarioFormats.register(format)`; the AES v1.4 format is plugins/aes.
 */
import type { Scenario } from './scenario.ts';

export interface ScenarioFormat {
  /** Recorded as the scenario's `source` and as the catalog entry's `format` (`aes-1.4`). */
  name: string;
  /** True when a document is in this format; cheap (it looks at a marker such as `aes_version`). */
  detect(document: unknown): boolean;
  /**
   * Validates the document and converts it. Throws a `validation_failed` problem naming paths into the
   * original document. `path` is where it was read from, when it was a file.
   */
  toScenario(document: unknown, options: { path?: string }): Scenario;
}
