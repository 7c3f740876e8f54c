/**
 * Where registered agents live in the shared store: one JSON record per name under `agents/<name>.json`, so every
 * instance sees the same registry. A name is created with `setIfAbsent`, so two instances cannot both create it.
 */
import type { Store } from '../../core/storage.ts';
import { AGENT_NAME, type AgentTarget, type AgentTargets } from '../../core/domain/agent-target.ts';

const PREFIX = 'agents';

/** The storage key of the agent named `name` (a name of `AGENT_NAME` form). */
export const agentKey = (name: string) => `${PREFIX}/${name}.json`;

/** Reads one agent, or `undefined` (also for a name that could not be one). */
export async function readAgent(store: Store, name: string): Promise<AgentTarget | undefined> {
  if (!AGENT_NAME.test(name)) return undefined;
  return (await store.getJson<AgentTarget>(agentKey(name))) ?? undefined;
}

/** Every registered agent, sorted by name. */
export async function listAgents(store: Store): Promise<AgentTarget[]> {
  const keys = (await store.keys(PREFIX)).filter((key) => key.endsWith('.json')).sort();
  const records = await Promise.all(keys.map((key) => store.getJson<AgentTarget>(key)));
  return records.filter((record): record is AgentTarget => record !== null && typeof record?.name === 'string');
}

/** Stores a new agent; false when the name is taken (by this request's rival on any instance too). */
export async function createAgent(store: Store, target: AgentTarget): Promise<boolean> {
  return store.setIfAbsent(agentKey(target.name), JSON.stringify(target));
}

/** Replaces an agent's record. */
export async function writeAgent(store: Store, target: AgentTarget): Promise<void> {
  await store.setJson(agentKey(target.name), target);
}

/** Removes an agent's record. */
export async function removeAgent(store: Store, name: string): Promise<void> {
  await store.remove(agentKey(name));
}

/** The `agentTargets` service over a store. */
export function createAgentTargets(store: Store): AgentTargets {
  return { get: (name) => readAgent(store, name), list: () => listAgents(store) };
}
