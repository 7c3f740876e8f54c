/**
 * The MCP agent example, run as the docs run it: `node examples/mcp-agent/agent.mjs` in its own process, the
 * service started by the Node entry on a real socket, and the example scenario submitted by path.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNodeService, type NodeService } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { TEST_KEY } from '../../test/helpers.ts';

const here = fileURLToPath(new URL('.', import.meta.url));


/** Starts the example agent as a user would and resolves with the URL it prints. */
function startExample(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(here, 'agent.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let printed = '';
    child.stdout!.on('data', (chunk) => {
      printed += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\/agent/.exec(printed)?.[0];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`the example agent exited with ${code}`)));
  });
}

describe('example: an MCP agent in the simulated world', () => {
  let service: NodeService | undefined;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    child?.kill();
    await service?.stop();
  });

  it('refunds the charge through its MCP client and passes tool_use and state_match', async () => {
    const example = await startExample();
    child = example.child;
    const root = mkdtempSync(join(tmpdir(), 'aeh-mcp-example-'));
    copyFileSync(join(here, 'refund-over-mcp.json'), join(root, 'refund-over-mcp.json'));
    const agentHost = new URL(example.url).host;
    service = await startNodeService({ DASHBOARD_API_KEY: TEST_KEY, PROJECT_ROOT: root, AEH_STORAGE: 'memory', PORT: '0', AEH_ALLOW_HOSTS: agentHost }, root, silentLogger);
    const headers = { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' };
    // The scenario names the example's default port; this test's agent listens where the system put it.
    const accepted = await (await fetch(`${service.url}/api/evaluate`, { method: 'POST', headers, body: JSON.stringify({ path: 'refund-over-mcp.json', agent: { adapter: 'http', url: example.url, max_tool_rounds: 0 } }) })).json();
    let task: any;
    for (let tries = 0; tries < 2400; tries++) {
      task = await (await fetch(`${service.url}/api/v1/tasks/${accepted.task_id}`, { headers })).json();
      if (['succeeded', 'failed', 'cancelled'].includes(task.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
    const run = await (await fetch(`${service.url}/api/v1/runs/${accepted.run_id}`, { headers })).json();
    expect(run.compliance.status).toBe('pass');
    const trace = (await (await fetch(`${service.url}/api/v1/runs/${accepted.run_id}/trace`, { headers })).text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(trace.filter((event) => event.type === 'tool_call').map((event) => event.data.name)).toEqual(['payments.get_charge', 'payments.refund']);
    expect(trace.filter((event) => event.type === 'state_change')).toHaveLength(1);
    expect(trace.find((event) => event.type === 'agent_output').data.output).toBe('Refunded 40 EUR on ch_1.');
    // forbidden_tools run tool_safety though the scenario lists only tool_use and state_match; required tools claim_check
    // (unmeasured: the refund succeeded, so there is no claim to check).
    expect(trace.filter((event) => event.type === 'metric_result').map((event) => [event.data.metric, event.data.score])).toEqual([['tool_use', 1], ['state_match', 1], ['tool_safety', 1], ['claim_check', null]]);
  });
});
