/**
 * A scenario read from a file (`POST /api/evaluate` and `POST /api/v1/mutate` with `path`): through the jail,
 * parsed without quoting the file, then normalised by the domain (core/domain/scenario-load.ts).
 */
import { Problem } from './problems.ts';
import type { Scenario } from './domain/scenario.ts';
import { normalizeScenario } from './domain/scenario-load.ts';
import type { Services } from './services.ts';
import { parseBoundedJson } from './guards/json.ts';
import { JsonDepthError } from './guards/json-depth.ts';
import { depthProblem } from './pipeline/json-body.ts';
import { readJailedFile } from './guards/jail.ts';

/** Reads a scenario JSON file through the jail and normalises it. */
export async function loadScenarioFile(services: Pick<Services, 'config' | 'capabilities' | 'scenarioFormats'>, path: string): Promise<Scenario> {
  const bytes = await readJailedFile(services, path, 16 * 1024 * 1024);
  let document: unknown;
  try {
    document = parseBoundedJson(new TextDecoder().decode(bytes));
  } catch (error) {
    if (error instanceof JsonDepthError) throw depthProblem(error, 'the scenario file');
    // Where, never what: the file may be anything the jail lets through, and V8's message quotes it.
    const where = (error as Error).message;
    throw new Problem('validation_failed', { detail: `the scenario file is ${where}`, errors: [{ path: '/', message: where }] });
  }
  return normalizeScenario(document, { path, formats: services.scenarioFormats.list() });
}
