/**
 * The console's run transcript, compare view and report download (#17 item 7): fragments rendered from the
 * transcript and compare APIs, escaped, with the caller's own permissions.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, type TestApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';
import { switchableAgent, switchableScenario, type SwitchableReplies } from './compare-fixtures.ts';

describe('console: transcript, compare and report download', () => {
  let t: TestApp;
  const replies: SwitchableReplies = {};
  let base: string;
  let head: string;

  beforeAll(async () => {
    t = await testApp({ plugins: [switchableAgent(replies)] });
    const scenario = switchableScenario('console-cmp', 30);
    Object.assign(replies, { '*': "I can't help with that. 42 EUR" });
    base = (await evaluate(t, { scenario })).run.run_id;
    Object.assign(replies, { t1: { output: '<script>alert(1)</script> balance unknown \u202Eevil\u202C', tool_calls: [{ name: 'ledger', arguments: { id: '<b>1</b>' }, result: { amount: '</pre>42' } }], usage: { input_tokens: 1200, output_tokens: 34, total_tokens: 1234 } } });
    head = (await evaluate(t, { scenario })).run.run_id;
  });

  it('serves the compare page shell without data, and links it from the navigation', async () => {
    const res = await t.request('GET', '/compare?base=latest&head=%22%3E%3Cx', { key: null });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<a href="/compare" aria-current="page">Compare</a>');
    expect(html).toContain('value="&quot;&gt;&lt;x"');
    expect(html).toContain('data-fragment="/console/fragments/compare" data-query="page"');
    const run = await (await t.request('GET', `/runs/${head}`, { key: null })).text();
    expect(run).toContain(`data-fragment="/console/fragments/runs/${head}/transcript" data-query="page"`);
  });

  it('lists the query parameters of the compare page and fragment, and of every console fragment that reads some, in the OpenAPI document', async () => {
    const paths = (await t.json('GET', '/api/openapi.json', { key: null })).body.paths;
    const queryOf = (path: string) => (paths[path].get.parameters ?? []).filter((parameter: { in: string }) => parameter.in === 'query').map((parameter: { name: string }) => parameter.name);
    expect(queryOf('/console/fragments/compare')).toEqual(['base', 'head', 'max_regression']);
    expect(queryOf('/compare')).toEqual(['base', 'head', 'max_regression']);
    expect(queryOf('/console/fragments/runs')).toEqual(['status', 'scenario_id', 'agent', 'cursor']);
    expect(queryOf('/console/fragments/catalog')).toEqual(['q', 'industry', 'use_case', 'tag', 'dimension', 'offset']);
    expect(queryOf('/console/fragments/runs/{run_id}/transcript')).toEqual(['offset']);
    expect(paths['/console/fragments/runs/{run_id}/transcript'].get.parameters).toContainEqual(expect.objectContaining({ name: 'run_id', in: 'path', required: true }));
  });

  it('renders the run detail with the report download and a compare link; the explain chain shows overrides as code points', async () => {
    const html = await (await t.request('GET', `/console/fragments/runs/${head}`)).text();
    expect(html).toContain('⟨U+202E⟩evil⟨U+202C⟩');
    expect(html).not.toContain('\u202E');
    expect(html).toContain(`data-download="/api/v1/runs/${head}/report" data-filename="report-${head}.html"`);
    expect(html).toContain(`href="/compare?base=latest&amp;head=${head}"`);
  });

  it('renders the transcript, escaped, 25 tasks a page, failed tasks open', async () => {
    const html = await (await t.request('GET', `/console/fragments/runs/${head}/transcript`)).text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; balance unknown ⟨U+202E⟩evil⟨U+202C⟩');
    expect(html).not.toContain('\u202E');
    expect(html).toContain('<strong>Tool call</strong> <code>ledger</code>');
    expect(html).toContain('&lt;/pre&gt;42');
    expect(html).toMatch(/<details class="unit" open="">\s*<summary><span class="badge fail">fail<\/span> Task <strong>t1<\/strong>/);
    expect(html).toContain('metric <code>probe_contains</code> (reliability) score 0.00');
    expect(html).toContain('Tasks 1–25 of 30.');
    expect(html).toContain(`<a href="/runs/${head}?offset=25#transcript-heading">Later tasks →</a>`);
    const second = await (await t.request('GET', `/console/fragments/runs/${head}/transcript?offset=25`)).text();
    expect(second).toContain('Tasks 26–30 of 30.');
    expect(second).toContain('← Earlier tasks');
    expect((await t.request('GET', `/console/fragments/runs/${head}/transcript`, { key: null })).status).toBe(401);
  });

  it('renders the comparison: the gate, deltas, changed tasks and answers side by side', async () => {
    const html = await (await t.request('GET', `/console/fragments/compare?base=${base}&head=${head}&max_regression=0.05`)).text();
    expect(html).toContain('Regressed beyond 0.05');
    expect(html).toContain('<code>new_failure</code>');
    expect(html).toContain('<th scope="row">reliability</th><td>1.00</td><td>0.93</td><td class="fail">-0.07</td>');
    expect(html).toMatch(/<td>t1<\/td><td><span class="badge pass">pass<\/span><\/td><td><span class="badge fail">fail<\/span><\/td><td class="fail">regressed<\/td><td><span><span><code>LOGIC\.TASK_FAILED<\/code> \(probe_contains\)/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; balance unknown');
    expect(html).not.toContain('<script>');
    // Usage: the base's agent reported no tokens (—, never zero); only the head's t1 did. No pass/fail colour.
    expect(html).toContain('<h2 id="usage-heading">Usage</h2>');
    expect(html).toContain('<th scope="row">agent calls</th><td>30</td><td>30</td><td>0</td>');
    expect(html).toContain('<th scope="row">total tokens</th><td>—</td><td>1,234</td><td>—</td>');
    const latest = await (await t.request('GET', `/console/fragments/compare?base=latest&head=${head}`)).text();
    expect(latest).toContain(`against latest = <a href="/runs/${base}">`);
    expect(await (await t.request('GET', '/console/fragments/compare')).text()).toContain('Name a base');
    expect(await (await t.request('GET', `/console/fragments/compare?base=run_nope&head=${head}`)).text()).toContain('Could not compare: run run_nope');
  });
});
