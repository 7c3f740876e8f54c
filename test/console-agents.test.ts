/**
 * The console and the agent registry (issue 17 item 7): the runs list shows one badge per run (the verdict once
 * finished, the state while not) and the agent, filters by agent, and the catalog's Launch buttons run against
 * the agent picked from the registry. The run page shows the verdict, never "succeeded" beside "fail".
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, type TestApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';
import { CONSOLE_SCRIPT } from '../plugins/console/client.ts';

let t: TestApp;
let passed: string;
let failing: string;
let nothing: string;
let inline: string;

beforeAll(async () => {
  t = await testApp({ plugins: [testMetrics] });
  for (const name of ['bot-a', 'bot-b']) {
    const created = await t.json('POST', '/api/v1/agents', { body: { name, adapter: 'scripted', options: { replies: { t1: 'Your balance is 42 EUR.', t2: 'Sure, here is how.' } }, description: `<img src=x onerror=alert(1)> ${name}` } });
    expect(created.status).toBe(201);
  }
  passed = (await evaluate(t, { scenario: scriptedScenario('console-a'), agent: { adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.', t2: "I can't help with that." } } })).run.run_id;
  failing = (await evaluate(t, { scenario: scriptedScenario('console-b'), agent: 'bot-a' })).run.run_id;
  nothing = (await evaluate(t, { scenario: scriptedScenario('console-c', { tasks: [{ id: 't1', input: 'Hi', metrics: [{ id: 'probe_contains' }] }] }), agent: 'bot-b' })).run.run_id;
  inline = passed;
}, 60_000);

async function html(path: string): Promise<string> {
  const response = await t.request('GET', path);
  expect(response.status, path).toBe(200);
  return response.text();
}

function rowOf(page: string, runId: string): string {
  const start = page.indexOf(`/runs/${runId}"`);
  expect(start, runId).toBeGreaterThan(-1);
  return page.slice(start, page.indexOf('</tr>', start));
}

describe('console: runs list verdicts and agents', () => {
  it('shows one badge per finished run, its verdict: never "succeeded" beside "fail"', async () => {
    const page = await html('/console/fragments/runs');
    expect(page).toContain('<th scope="col">Verdict</th><th scope="col">Agent</th>');
    expect(page).not.toContain('class="badge succeeded"');
    expect(rowOf(page, passed)).toContain('<span class="badge pass">pass</span>');
    expect(rowOf(page, failing)).toContain('<span class="badge fail">fail</span>');
    expect(rowOf(page, nothing)).toMatch(/<span class="badge error" title="nothing was measured: probe_contains on 1 result: no expected.contains">error<\/span>/);
  });

  it('names the agent: a registered one links to its runs, an inline one shows its adapter and hash', async () => {
    const page = await html('/console/fragments/runs');
    expect(rowOf(page, failing)).toContain('<a href="/?agent=bot-a">bot-a</a>');
    expect(rowOf(page, inline)).toMatch(/scripted <code class="muted" title="configuration [a-f0-9]{64}">[a-f0-9]{8}<\/code>/);
  });

  it('filters by agent and keeps the filter on the next page', async () => {
    const page = await html('/console/fragments/runs?agent=bot-a');
    expect(page).toContain('Newest first, agent bot-a');
    expect(page).toContain(`/runs/${failing}"`);
    expect(page).not.toContain(`/runs/${nothing}"`);
    expect(page).not.toContain(`/runs/${passed}"`);
    expect(await html('/console/fragments/runs?agent=nobody')).toContain('No runs match these filters');
  });

  it('the runs page offers the registered agents as a filter, the one in force selected', async () => {
    expect(await html('/?agent=bot-b')).toContain('data-fragment="/console/fragments/agent-filter"');
    const select = await html('/console/fragments/agent-filter?agent=bot-b');
    expect(select).toContain('<option value="">any</option><option value="bot-a">bot-a</option><option value="bot-b" selected="">bot-b</option>');
    expect(await html('/console/fragments/agent-filter?agent=gone-bot')).toContain('<option value="gone-bot" selected="">gone-bot (not registered now)</option>');
  });
});

describe('console: launching against a registered agent', () => {
  it('the catalog offers the registered agents, escaping their descriptions', async () => {
    const page = await html('/console/fragments/catalog');
    expect(page).toContain('<select id="launch-agent" name="agent"><option value="">each scenario&#39;s own agent</option>');
    expect(page).toContain('<option value="bot-a">bot-a (scripted) — &lt;img src=x onerror=alert(1)&gt; bot-a</option>');
    expect(page).not.toContain('<img src=x');
  });

  it('says what happens when no agent is registered', async () => {
    const empty = await testApp();
    const page = await (await empty.request('GET', '/console/fragments/catalog')).text();
    expect(page).not.toContain('id="launch-agent"');
    expect(page).toContain('No agent is registered yet');
  });

  it('the Launch button sends the picked agent with the scenario id', () => {
    expect(CONSOLE_SCRIPT).toContain("document.getElementById('launch-agent')");
    expect(CONSOLE_SCRIPT).toContain('body.agent = picked.value');
  });
});

describe('console: the run page', () => {
  it('shows the verdict and the agent; a run that measured nothing says why', async () => {
    const page = await html(`/console/fragments/runs/${nothing}`);
    expect(page).toContain('Verdict <span class="badge error" title="nothing was measured');
    expect(page).not.toContain('class="badge succeeded"');
    expect(page).toContain('agent <span><a href="/?agent=bot-b">bot-b</a></span>');
    expect(page).toContain('error nothing_measured: nothing was measured: probe_contains on 1 result: no expected.contains');
  });
});
