/**
 * Pinned baselines: one run per scenario and agent that later runs are gated against
 * (`GET /api/v1/compare?base=baseline&head=<run>`, `aeh evaluate --baseline pinned`). Stored as
 * `baselines/<scenario_id>/<digest of the agent key>.json`; the record names the agent key in full and the
 * scenario's content hash (issue 32 item 7): a baseline serves only runs of the same content, and a catalog
 * scenario's baseline must be a run of the catalog's content.
 */
import { sha3Hex } from '../../core/domain/hash.ts';
import { keys, SIDECARS } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import type { Store } from '../../core/storage.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { agentKeyOf, type AgentKey } from './agent-key.ts';
import { loadSnapshot, scenarioOfPlan } from './snapshot.ts';
import { readEvidenceJson } from '../../core/domain/packed-evidence.ts';
import { runContentHash } from '../../core/domain/scenario-identity.ts';
import { holdRun, releaseRun } from '../../core/domain/run-holds.ts';

/** A pinned baseline (`GET /api/v1/baselines/:scenario_id` items). */
export interface Baseline {
  scenario_id: string;
  agent: AgentKey;
  run_id: string;
  /** The content hash of the run's scenario (absent in baselines pinned before it: read from the run). */
  scenario_hash?: string;
  /** The run's index and compliance when it was pinned, for people reading the list. */
  index: number | null;
  compliance: string | null;
  pinned_at: string;
  pinned_by: string | null;
}

const SCENARIO_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Refuses a scenario id that could not be a scenario (or a storage path segment). */
export function checkScenarioId(scenarioId: string): string {
  if (!SCENARIO_ID.test(scenarioId)) throw new Problem('validation_failed', { detail: 'scenario_id must be a scenario id', errors: [{ path: '/scenario_id', message: `must match ${SCENARIO_ID.source}` }] });
  return scenarioId;
}

const folder = (scenarioId: string) => `baselines/${scenarioId}`;
const keyOf = (scenarioId: string, agentKey: string) => `${folder(scenarioId)}/${sha3Hex(agentKey).slice(0, 32)}.json`;
/** The hold a baseline keeps on its run (core/domain/run-holds.ts), so retention's keep_runs never deletes it. */
const holderOf = (scenarioId: string, agentKey: string) => `baseline-${sha3Hex(`${scenarioId}\u0000${agentKey}`).slice(0, 32)}`;

/** The agent key and scenario content hash of a stored run, from its record and plan (no trace read). */
export async function keysOfRun(store: Store, runId: string): Promise<{ agent: AgentKey; contentHash?: string } | undefined> {
  const [run, plan] = await Promise.all([readRun(store, runId), readEvidenceJson<unknown>(store, runId, SIDECARS.scenario)]);
  return run ? { agent: agentKeyOf(run, scenarioOfPlan(plan)?.agent), contentHash: runContentHash(run, plan) } : undefined;
}

/** The content hash of a baseline's scenario: recorded when pinned, or read from its run (older baselines). */
export async function baselineContent(store: Store, baseline: Baseline): Promise<string | undefined> {
  return baseline.scenario_hash ?? (await keysOfRun(store, baseline.run_id))?.contentHash;
}

/** The baseline pinned for a scenario and agent key, or `undefined`. */
export async function readBaseline(store: Store, scenarioId: string, agentKey: string): Promise<Baseline | undefined> {
  return (await store.getJson<Baseline>(keyOf(checkScenarioId(scenarioId), agentKey))) ?? undefined;
}

/** Every baseline pinned for a scenario, optionally only those of one agent key. */
export async function listBaselines(store: Store, scenarioId: string, agentKey?: string): Promise<Baseline[]> {
  if (agentKey) {
    const one = await readBaseline(store, scenarioId, agentKey);
    return one ? [one] : [];
  }
  const found = await store.keys(folder(checkScenarioId(scenarioId)));
  const records = await Promise.all(found.filter((key) => key.endsWith('.json')).map((key) => store.getJson<Baseline>(key)));
  return records.filter((record): record is Baseline => record !== null).sort((a, b) => a.agent.key.localeCompare(b.agent.key));
}

/**
 * Pins `runId` as the baseline of its scenario and agent. The run must be a succeeded run of that scenario: a
 * run that could not complete is no yardstick. When the id is a catalog scenario's, `catalogHash` is its content
 * hash as it would run now, and the run must be of that content (409 otherwise): a document run under the id is
 * not the catalog's scenario.
 */
export async function pinBaseline(store: Store, scenarioId: string, runId: string, pinnedBy: string | null, now: number, catalogHash?: string): Promise<Baseline> {
  checkScenarioId(scenarioId);
  const snapshot = await loadSnapshot(store, runId);
  const { run } = snapshot;
  if (run.scenario_id !== scenarioId) {
    throw new Problem('validation_failed', { detail: `run ${runId} evaluated scenario "${run.scenario_id}", not "${scenarioId}"`, errors: [{ path: '/run_id', message: 'is a run of another scenario' }] });
  }
  if (catalogHash !== undefined && snapshot.contentHash !== catalogHash) {
    throw new Problem('conflict', {
      detail: `run ${runId} ran other content under the id "${scenarioId}" than the catalog's scenario (content ${String(snapshot.contentHash).slice(0, 16)}…, the catalog's ${catalogHash.slice(0, 16)}…): only a run of the catalog's scenario can be its baseline`,
      extra: { scenario_hash: snapshot.contentHash ?? null, catalog_scenario_hash: catalogHash },
    });
  }
  if (run.status !== 'succeeded') throw new Problem('conflict', { detail: `run ${runId} did not complete (${run.status}); pin a succeeded run` });
  const baseline: Baseline = {
    scenario_id: scenarioId,
    agent: snapshot.agent,
    run_id: runId,
    ...(snapshot.contentHash ? { scenario_hash: snapshot.contentHash } : {}),
    index: run.index,
    compliance: run.compliance?.status ?? null,
    pinned_at: new Date(now).toISOString(),
    pinned_by: pinnedBy,
  };
  const previous = await readBaseline(store, scenarioId, snapshot.agent.key);
  const holder = holderOf(scenarioId, snapshot.agent.key);
  // Held before it is pinned, released after it no longer is: retention never sees a pinned run unheld.
  await holdRun(store, runId, holder);
  await store.setJson(keyOf(scenarioId, snapshot.agent.key), baseline);
  if (previous && previous.run_id !== runId) await releaseRun(store, previous.run_id, holder);
  return baseline;
}

/** Holds the run of every pinned baseline: those pinned before baselines held their runs (run at start). */
export async function holdPinnedRuns(store: Store): Promise<void> {
  for (const key of await store.keys('baselines')) {
    const baseline = key.endsWith('.json') ? await store.getJson<Baseline>(key).catch(() => null) : null;
    if (baseline?.run_id && baseline.agent?.key && SCENARIO_ID.test(baseline.scenario_id)) await holdRun(store, baseline.run_id, holderOf(baseline.scenario_id, baseline.agent.key)).catch(() => undefined);
  }
}

/** Unpins the baseline of a scenario and agent key; 404 when none is pinned. */
export async function unpinBaseline(store: Store, scenarioId: string, agentKey: string): Promise<Baseline> {
  const baseline = await readBaseline(store, scenarioId, agentKey);
  if (!baseline) throw notFound(`a baseline of scenario "${scenarioId}" for agent "${agentKey.slice(0, 80)}"`);
  await store.remove(keyOf(scenarioId, agentKey));
  await releaseRun(store, baseline.run_id, holderOf(scenarioId, agentKey));
  return baseline;
}
