/**
 * Issue 24 item 7: a task world applies its tool calls one at a time. An MCP client may send several calls at
 * once; before the per-world queue, five inserts of one primary key all succeeded against the same starting
 * state, the metrics saw one row, and the signed world.json showed five rows with one key. Now the first insert
 * wins and SQLite refuses the other four, and the trace, world.json and the metrics tell the same story.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AgentAdapter } from '../core/agent-adapter.ts';
import type { AehApp } from '../core/app.ts';
import type { Plugin } from '../core/plugin.ts';
import { createWorkerPool } from '../runtime/node/offload.ts';
import { testApp } from './helpers.ts';
import { evaluate, finalWorld } from './evaluation-fixtures.ts';

/** An MCP agent that sends five inserts of the same key at once, then answers. */
function racingAgent(app: () => AehApp): Plugin {
  const adapter: AgentAdapter = {
    name: 'racing_mcp',
    description: 'test: five concurrent MCP calls',
    async call(_input, { mcp }) {
      const client = new Client({ name: 'racer', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp!.url), {
        fetch: (input, init) => Promise.resolve(app().fetch(new Request(input, init))),
        requestInit: { headers: { authorization: `Bearer ${mcp!.token}` } },
      }));
      const answers = await Promise.all([1, 2, 3, 4, 5].map((attempt) => client.callTool({ name: 'sql__query', arguments: { sql: 'INSERT INTO accounts (id, opened_by) VALUES (?, ?)', params: ['acct-1', `attempt-${attempt}`] } })));
      await client.close();
      return { output: `${answers.filter((answer) => !answer.isError).length} insert(s) succeeded` };
    },
  };
  return { name: 'test-racing-mcp', setup(host) { host.agents.register(adapter, 'test-racing-mcp'); } };
}

const scenario = {
  id: 'one-account', title: 'Open one account', industry: 'Fintech', use_case: 'Onboarding', tags: ['shims', 'mcp'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'racing_mcp' }, topology: [],
  enabled_shims: ['sql'],
  initial_state: { sql: { schema: ['CREATE TABLE accounts (id TEXT PRIMARY KEY, opened_by TEXT NOT NULL)'], read_only: false } },
  tasks: [{
    id: 'open', input: 'Open account acct-1.',
    expected_outcome: [{ target: 'shim:sql', property: 'tables.accounts', expected: 1, mode: 'count' }],
    metrics: [{ id: 'state_match' }],
  }],
};

describe('evaluation: concurrent tool calls of one task world (issue 24 item 7)', () => {
  const pool = createWorkerPool({ size: 2 });
  afterAll(() => pool.close());

  it('applies them one at a time: one insert succeeds, SQLite refuses four, and trace, world.json and metrics agree', async () => {
    let app: AehApp | undefined;
    const t = await testApp({ plugins: [racingAgent(() => app!)], capabilities: { offload: pool } });
    app = t.app;
    const { run, trace } = await evaluate(t, { scenario });
    expect(run.status).toBe('succeeded');

    const calls = trace.filter((event: any) => event.type === 'tool_call').map((event: any) => event.data);
    expect(calls).toHaveLength(5);
    expect(calls.filter((call: any) => call.result)).toHaveLength(1);
    const refused = calls.filter((call: any) => call.error);
    expect(refused.map((call: any) => call.error.code)).toEqual(['invalid', 'invalid', 'invalid', 'invalid']);
    expect(refused.every((call: any) => /UNIQUE constraint failed: accounts\.id/.test(call.error.message))).toBe(true);
    expect(trace.filter((event: any) => event.type === 'state_change')).toHaveLength(1);
    expect(trace.find((event: any) => event.type === 'agent_output').data.output).toBe('1 insert(s) succeeded');

    const world = (await t.json('GET', `/api/v1/runs/${run.run_id}/evidence/world.json`)).body;
    const winner = calls.find((call: any) => call.result).arguments.params[1];
    expect(finalWorld(world).sql.tables.accounts).toEqual([{ id: 'acct-1', opened_by: winner }]);
    const scores = trace.filter((event: any) => event.type === 'metric_result').map((event: any) => [event.data.metric, event.data.score]);
    expect(scores).toEqual([['state_match', 1]]);
    expect((await t.json('GET', `/api/v1/verify/${run.run_id}`, { key: null })).body.status).toBe('valid');
    await t.app.close();
  }, 60_000);
});
