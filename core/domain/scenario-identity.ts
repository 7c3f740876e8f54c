/**
 * A scenario's identity is its content (issue 32 item 7): its id names it, but two documents with one id are the
 * same scenario only when their content is the same. The content hash is SHA3-256 over the RFC 8785 (JCS) form
 * of the scenario as it runs (the run plan's `scenario`: normalised, its implied metrics and named shim
 * configurations spelled out), without `agent`: the agent is what a run evaluates, not part of the test. So any
 * run's hash, an old one's too, can be computed again from its `scenario.json`. Runs record the hash and where
 * the scenario came from (`origin`); baselines, `latest` and retention match on the hash as well as the id, and
 * the certificate carries both.
 *
 * Where a scenario comes from, as the service knows it (never as a submitter claims it):
 *  - `catalog`: by `scenario_id`, from the catalog (bundled, or an `AEH_CATALOG_DIRS` folder: an operator's
 *    datasets placed there are catalog scenarios);
 *  - `file`: by `path`, a file under `PROJECT_ROOT`, read through the file jail;
 *  - `inline`: sent in the request (a dataset import's answer, a suite's or schedule's own copy included).
 */
import type { Scenario } from './scenario.ts';
import { sha3Hex, type HexDigest, type Sha3Factory } from './hash.ts';
import { canonicalJson, wellFormed } from './certificate.ts';
import { withImpliedMetrics } from './implied-metrics.ts';
import { resolveShimConfigs, type NamedShimConfig } from './shim-configs.ts';
import type { Store } from '../storage.ts';
import type { Catalog } from './catalog.ts';
import { Problem } from '../problems.ts';
import { memoizedHash } from './hash-memo.ts';

/** Where a run's scenario came from. */
export type ScenarioOrigin = 'catalog' | 'file' | 'inline';

export const SCENARIO_ORIGINS: readonly ScenarioOrigin[] = ['catalog', 'file', 'inline'];

/** A scenario's identity as a run and its certificate record it. */
export interface ScenarioIdentity {
  id: string;
  /** SHA3-256 (hex) of the canonical scenario without its agent. */
  content_hash: HexDigest;
  origin: ScenarioOrigin;
}

/** The content hash of a scenario (see the file's header): its id, tasks, world and policy; not its agent. */
export function scenarioContentHash(scenario: Scenario | Record<string, unknown>, factory?: Sha3Factory): HexDigest {
  const { agent: _agent, ...content } = scenario as Record<string, unknown>;
  // A scenario may hold any text: lone surrogates become U+FFFD (RFC 8785 refuses them).
  return sha3Hex(canonicalJson(wellFormed(content)), factory);
}

/**
 * `scenarioContentHash`, remembered by the scenario's JSON text (hash-memo.ts): a repeat submission skips the
 * canonical form. The text names the agent too, which the hash leaves out: a scenario run with two agents is two
 * entries of one hash.
 */
export function memoizedContentHash(scenario: Scenario, factory?: Sha3Factory): HexDigest {
  return memoizedHash('scenario-content', scenario, (value) => scenarioContentHash(value, factory));
}

/** The content hash of a stored run: its record's, or (records written before it) its plan's scenario's. */
export function runContentHash(run: { scenario_hash?: string }, plan: unknown, factory?: Sha3Factory): HexDigest | undefined {
  if (typeof run.scenario_hash === 'string') return run.scenario_hash;
  const scenario = plan && typeof plan === 'object' ? (plan as { scenario?: unknown }).scenario : undefined;
  return scenario && typeof scenario === 'object' && !Array.isArray(scenario) ? scenarioContentHash(scenario as Record<string, unknown>, factory) : undefined;
}

/** What `contentHashAsRun` reads: the stored named shim configurations and `AEH_ENABLED_SHIMS` (a `Services`). */
export interface AsRunContext {
  store: Pick<Store, 'getJson'>;
  config: { enabledShims?: readonly string[] };
}

/** An `AsRunContext` that also finds the catalog (a `Services`). */
export interface CatalogContext extends AsRunContext {
  find(slot: 'catalog'): Catalog | undefined;
}

/** The content hash `scenario` (as a source gives it) would run under now: the hash its run would record. */
export async function contentHashAsRun(services: AsRunContext, scenario: Scenario, factory?: Sha3Factory): Promise<HexDigest> {
  const read = (key: string) => services.store.getJson<NamedShimConfig>(key);
  const resolved = await resolveShimConfigs(withImpliedMetrics(scenario), read, services.config.enabledShims);
  return scenarioContentHash(resolved.scenario, factory);
}

/** The content hash the catalog's scenario `id` would run under now, or `undefined` when the catalog has none. */
export async function catalogContentHash(services: CatalogContext, id: string, factory?: Sha3Factory): Promise<HexDigest | undefined> {
  const catalogued = await services.find('catalog')?.get(id);
  return catalogued ? contentHashAsRun(services, catalogued, factory) : undefined;
}

/**
 * Refuses (409 `conflict`) a scenario sent inline under the id of a catalog scenario whose content differs: it
 * would be certified, listed and pinned as that scenario. The same content under the same id is the same
 * scenario, and is accepted. `asRun` is the inline scenario's content hash as it would run (computed here when
 * not given); `path` is where the id was given (`/scenario/id`, `/scenarios/3/scenario/id`).
 */
export async function checkInlineScenarioId(services: CatalogContext, scenario: Scenario, options: { path?: string; asRun?: HexDigest; factory?: Sha3Factory } = {}): Promise<void> {
  const { path = '/scenario/id', factory } = options;
  const catalogued = await catalogContentHash(services, scenario.id, factory);
  if (catalogued === undefined || catalogued === (options.asRun ?? (await contentHashAsRun(services, scenario, factory)))) return;
  throw new Problem('conflict', {
    detail: `the catalog has a scenario "${scenario.id}" with other content: an inline scenario may not take its id. Run it by scenario_id, or give yours an id of its own`,
    errors: [{ path, message: `is the id of a catalog scenario with other content` }],
    extra: { scenario_id: scenario.id },
  });
}
