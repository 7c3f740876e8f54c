/**
 * The agent registry in the console (issue 17 item 7): the runs list's agent filter and the catalog's agent
 * picker, both from `GET /api/v1/agents` as the caller may read it.
 */
import type { AppContext } from '../../../core/routes.ts';
import { callApi } from '../api.ts';

interface AgentEntry { name: string; adapter: string; description?: string; owner?: string }

/** The registered agents the caller may see; empty when none are, or the caller may not list them. */
export async function registeredAgents(c: AppContext): Promise<AgentEntry[]> {
  const { status, body } = await callApi<{ items?: AgentEntry[] }>(c, '/api/v1/agents');
  return status === 200 && Array.isArray(body.items) ? body.items : [];
}

/** `GET /console/fragments/agent-filter`: the runs list's `agent` select, the current choice selected. */
export async function agentFilterFragment(c: AppContext) {
  const current = c.req.query('agent') ?? '';
  const agents = await registeredAgents(c);
  const known = agents.some((agent) => agent.name === current);
  return c.html(
    <select name="agent" id="agent-filter">
      <option value="">any</option>
      {agents.map((agent) => <option value={agent.name} selected={agent.name === current}>{agent.name}</option>)}
      {current && !known && <option value={current} selected>{current} (not registered now)</option>}
    </select>,
  );
}

/**
 * The catalog's agent picker: which registered agent the Launch buttons run scenarios against, or each
 * scenario's own (AES scenarios have none, so they need one picked).
 */
export function AgentPicker(props: { agents: AgentEntry[] }) {
  if (props.agents.length === 0) {
    return <p class="muted">Scenarios run against their own agent. No agent is registered yet (<code>POST /api/v1/agents</code>), so AES scenarios and spec-to-eval stubs, which name none, cannot be launched from here.</p>;
  }
  return (
    <p>
      <label for="launch-agent">Run against
        <select id="launch-agent" name="agent">
          <option value="">each scenario's own agent</option>
          {props.agents.map((agent) => <option value={agent.name}>{agent.name} ({agent.adapter}){agent.description ? ` — ${agent.description.slice(0, 80)}` : ''}</option>)}
        </select>
      </label>
    </p>
  );
}
