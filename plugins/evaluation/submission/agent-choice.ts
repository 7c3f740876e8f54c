/**
 * Which agent a submission runs against (issue 17 item 1, issue 18 item 6): the request's `agent` — a name
 * of the agent registry (the `agentTargets` slot) or an inline spec — over the scenario's own. A scenario that
 * names no agent (`{"adapter": "none"}`, as every AES document) is refused unless the request gives one, so a
 * placeholder is never scored as if an agent had answered. The run records the name and a hash of the spec.
 */
import { Problem } from '../../../core/problems.ts';
import { memoizedConfigHash, agentSpecOf, namesNoAgent, type RunAgent } from '../../../core/domain/agent-target.ts';
import type { Sha3Factory } from '../../../core/domain/hash.ts';
import type { AgentSpec, Scenario } from '../../../core/domain/scenario.ts';
import type { Services } from '../../../core/services.ts';

/** The hint every "no agent" refusal carries. */
export const NO_AGENT_HINT = 'give "agent": a registry name (GET /api/v1/agents) or a spec such as {"adapter": "http", "url": "https://agent.example.com/run"}';

/** The scenario with the agent it runs against, and what the run records of that agent. */
export interface AgentChoice {
  scenario: Scenario;
  agent: RunAgent;
}

async function registered(services: Pick<Services, 'find'>, name: string): Promise<{ spec: AgentSpec; name: string }> {
  const registry = services.find('agentTargets');
  if (!registry) {
    throw new Problem('validation_failed', { detail: `"agent": "${name.slice(0, 64)}" names a registered agent, but no agent registry is loaded here: give an agent spec instead`, errors: [{ path: '/agent', message: 'no agent registry is loaded (plugin agent-registry)' }] });
  }
  const target = await registry.get(name);
  if (!target) throw new Problem('not_found', { detail: `no agent is registered as "${name.slice(0, 64)}"`, extra: { hint: 'GET /api/v1/agents lists the registered agents' } });
  return { spec: agentSpecOf(target), name: target.name };
}

/** The spec with the scenario's `agent_defaults` for its adapter under its own options (the spec's win). */
function withDefaults(spec: AgentSpec, defaults: Scenario['agent_defaults']): AgentSpec {
  const own = defaults && Object.hasOwn(defaults, spec.adapter) ? defaults[spec.adapter] : undefined;
  return own ? { ...own, ...spec } : spec;
}

/** Refuses a scenario left without an agent: 400 naming `/agent`, with the hint. */
function noAgent(scenario: Scenario): Problem {
  const message = 'the scenario names no agent: give "agent": a registry name or a spec';
  return new Problem('validation_failed', { detail: `scenario "${scenario.id}" names no agent of its own: ${NO_AGENT_HINT}`, errors: [{ path: '/agent', message }], extra: { hint: NO_AGENT_HINT } });
}

/**
 * The agent a submission runs against: `given` (a registry name or a spec) over the scenario's own; refuses
 * an unknown name (404), a missing registry or a scenario left without an agent (400 `/agent`). The scenario's
 * `agent_defaults` for the chosen adapter fill the options the spec leaves unset; the run's config hash is the
 * merged spec's, the agent that ran.
 */
export async function chooseAgent(services: Pick<Services, 'find'>, scenario: Scenario, given: string | AgentSpec | undefined, sha3?: Sha3Factory): Promise<AgentChoice> {
  const picked = typeof given === 'string' ? await registered(services, given) : { spec: given ?? scenario.agent, name: undefined };
  if (namesNoAgent(picked.spec)) throw noAgent(scenario);
  const chosen = { ...picked, spec: withDefaults(picked.spec, scenario.agent_defaults) };
  const agent: RunAgent = { ...(chosen.name ? { name: chosen.name } : {}), adapter: chosen.spec.adapter, config_hash: memoizedConfigHash(chosen.spec, sha3) };
  return { scenario: { ...scenario, agent: chosen.spec }, agent };
}
