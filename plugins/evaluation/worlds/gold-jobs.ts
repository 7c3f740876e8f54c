/**
 * The worker side of gold replays (gold-world.ts): loads each enabled shim from its module URL (`Shim.module` or
 * `Shim.replayModule`), then replays the task's gold actions exactly as the request thread would, on a world built
 * here from the scenario's initial state. Imported by the worker only; gold-world.ts names it by URL.
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Shim } from '../../../core/shim.ts';
import { createRegistry } from '../../../core/registry.ts';
import { replay, type IndexedActions, type ReplayResult } from './gold-world.ts';

/** One task's replay: its scenario's world (tasks left out), the task and the run's clock. */
export interface GoldJob {
  /** Shim name → URL of the module whose default export is that shim. */
  modules: Record<string, string>;
  scenario: Scenario;
  task: ScenarioTask;
  /** The gold actions to replay, each with its index in `expected_actions`. */
  actions: IndexedActions;
  now: string;
}

const loaded = new Map<string, Promise<Shim>>();

function shimAt(module: string): Promise<Shim> {
  let shim = loaded.get(module);
  if (!shim) {
    shim = import(module).then((exported: { default: Shim }) => exported.default);
    loaded.set(module, shim);
  }
  return shim;
}

/** Replays a task's gold actions in this worker; its shims were loaded before the budget started (`preload`). */
export async function replayGold(job: GoldJob): Promise<ReplayResult> {
  const shims = createRegistry<Shim>('shim', (shim) => shim.name);
  for (const [name, module] of Object.entries(job.modules)) {
    const shim = await shimAt(module);
    if (shim?.name !== name) throw new Error(`${module} does not export the shim "${name}" as its default`);
    shims.register(shim);
  }
  return replay(shims, job.scenario, job.task, job.actions, job.now);
}
