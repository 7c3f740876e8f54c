import { describe, it, expect } from 'vitest';
import { chooseAgent } from './agent-choice.ts';
import type { Scenario } from '../../../core/domain/scenario.ts';

const scenario = (extra: Partial<Scenario> = {}): Scenario => ({
  id: 's', title: 's', industry: 'x', use_case: 'x', tags: [], policy_ref: 'x', topology: [], tasks: [{ id: 't', input: 'x', metrics: [] }],
  agent: { adapter: 'openai', base_url: 'https://llm.example/v1', model: 'own' },
  agent_defaults: { openai: { max_tool_rounds: 15, tool_output: 'text' }, http: { max_tool_rounds: 3 } },
  ...extra,
});
const services = { find: () => undefined } as never;

describe('submission: agent_defaults', () => {
  it('gives the scenario\'s own agent of that adapter the options its spec leaves unset', async () => {
    const { scenario: chosen } = await chooseAgent(services, scenario(), undefined);
    expect(chosen.agent).toEqual({ adapter: 'openai', base_url: 'https://llm.example/v1', model: 'own', max_tool_rounds: 15, tool_output: 'text' });
  });

  it('lets the request\'s spec keep its own values, and hashes the merged spec', async () => {
    const given = { adapter: 'openai', base_url: 'https://other.example/v1', model: 'm', max_tool_rounds: 4 };
    const merged = await chooseAgent(services, scenario(), given);
    expect(merged.scenario.agent).toEqual({ ...given, tool_output: 'text' });
    const bare = await chooseAgent(services, scenario({ agent_defaults: undefined }), given);
    expect(bare.scenario.agent).toEqual(given);
    expect(merged.agent.config_hash).not.toBe(bare.agent.config_hash);
  });

  it('leaves an agent of another adapter as it is', async () => {
    const given = { adapter: 'scripted', replies: { '*': 'ok' } };
    expect((await chooseAgent(services, scenario({ agent_defaults: { openai: { max_tool_rounds: 15 } } }), given)).scenario.agent).toEqual(given);
  });
});
