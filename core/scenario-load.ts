/**
 * Turning documents into scenarios: native scenarios are validated against the schema; AES v1.4 documents
 * are normalised first (`core/aes.ts`). Used by evaluate, mutate, the catalog and spec-to-eval.
 */
import { Problem } from './problems.ts';
import type { Scenario } from './scenario.ts';
import type { Services } from './services.ts';
import { scenarioSchema } from './schemas/scenario.ts';
import { assertValid } from './validate.ts';
import { readJailedFile } from './jail.ts';

/** True when a document looks like an AES v1.4 scenario. */
export function isAesDocument(document: unknown): boolean {
  return typeof document === 'object' && document !== null && 'aes_version' in document;
}

/**
 * Validates a native scenario or normalises an AES v1.4 one; throws `validation_failed` listing every
 * failing path.
 */
export function normalizeScenario(document: unknown, options: { source?: string } = {}): Scenario {
  if (isAesDocument(document)) {
    throw new Problem('validation_failed', { detail: 'AES v1.4 documents are not supported yet', errors: [{ path: '/aes_version', message: 'not supported yet' }] });
  }
  const scenario = assertValid<Scenario>(scenarioSchema, document, 'scenario');
  return options.source && !scenario.source ? { ...scenario, source: options.source } : scenario;
}

/** Reads a scenario JSON file through the jail and normalises it. */
export async function loadScenarioFile(services: Pick<Services, 'config' | 'capabilities'>, path: string): Promise<Scenario> {
  const bytes = await readJailedFile(services, path, 16 * 1024 * 1024);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new Problem('validation_failed', { detail: `the scenario file is not valid JSON: ${(error as Error).message}`, errors: [{ path: '/', message: 'not valid JSON' }] });
  }
  return normalizeScenario(document);
}
