/**
 * The command line and usage (issue 17 item 6): `aeh evaluate --cache` asks for the response cache and its
 * summary says what the calls used and cost; Markdown and JUnit carry the same totals; `aeh verify` shows a
 * certificate's cached answers and `--refuse-cached` fails it. The agent is served by msw and counts its calls;
 * the store is the fs driver under the project, so two invocations share the cache as two CI steps would.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { XMLParser } from 'fast-xml-parser';
import { runCli } from './cli-io.ts';
import { usageLine } from '../core/domain/usage-text.ts';

const server = setupServer();
let calls = 0;
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'bypass' });
  server.use(http.post('http://agent.test/agent', async ({ request }) => {
    const body: any = await request.json();
    calls++;
    return HttpResponse.json({ output: `The answer to ${body.task_id} is 42.`, model: 'bot-1', usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 } });
  }));
});
afterAll(() => server.close());

const SCENARIO = {
  id: 'cli-usage', title: 'CLI usage', industry: 'Fintech', use_case: 'Support', tags: ['usage'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'http', url: 'http://agent.test/agent' }, topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
  tasks: [{ id: 't1', input: 'What is the answer?', expected: { contains: '42' }, metrics: [{ id: 'task_success' }] }],
};

describe('cli: usage, cost and --cache', () => {
  let cwd: string;
  let env: Record<string, string>;
  beforeAll(() => {
    cwd = mkdtempSync(join(tmpdir(), 'aeh-cli-usage-'));
    writeFileSync(join(cwd, 'scenario.json'), JSON.stringify(SCENARIO));
    env = { AEH_STORAGE: 'fs', PROJECT_ROOT: cwd, AEH_ALLOW_HOSTS: 'agent.test', AEH_PRICES: '{"bot-1": {"input": 3, "output": 15}}', AEH_METRIC_WORKERS: '0' };
  });

  it('prints the totals and cost, and a second --cache run answers from the cache, says so and is refused by verify --refuse-cached', async () => {
    const first = await runCli(['evaluate', 'scenario.json', '--cache'], { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    expect(calls).toBe(1);
    // 1200 × 3 + 300 × 15 = 8100 per million
    expect(first.stdout).toContain('  usage: 1 call, 1,500 tokens (1,200 in, 300 out), latency p50 ');
    expect(first.stdout).toContain('cost 0.0081 USD');

    const second = await runCli(['evaluate', 'scenario.json', '--cache', '--format', 'markdown', '--artifacts', 'out'], { cwd, env });
    expect(second.code, second.stderr).toBe(0);
    expect(calls).toBe(1);
    expect(second.stdout).toContain('Usage: 0 calls + 1 cached (1,500 tokens not spent), cost 0 USD, 0.0081 USD saved by the cache · **answers from the response cache**');
    const certificate = JSON.parse(readFileSync(join(cwd, 'out', 'certificate.json'), 'utf8'));
    expect(certificate.cache).toEqual({ cached_calls: 1, agent_calls: 1 });

    const verified = await runCli(['verify', 'out/certificate.json', '--trace', 'out/trace.jsonl', '--jwks', 'out/jwks.json'], { cwd, env });
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/ok {3}cache +1 of 1 agent answers came from the response cache/);
    const refused = await runCli(['verify', 'out/certificate.json', '--trace', 'out/trace.jsonl', '--jwks', 'out/jwks.json', '--refuse-cached'], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('FAIL cache');
    expect(refused.stdout).toMatch(/invalid \(failed: cache\)/);
  });

  it('puts the totals in the JUnit properties, and without --cache asks the agent again', async () => {
    const before = calls;
    const result = await runCli(['evaluate', 'scenario.json', '--format', 'junit'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    expect(calls).toBe(before + 1);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'property' }).parse(result.stdout);
    const properties = Object.fromEntries(parsed.testsuites.testsuite.properties.property.map((property: any) => [property.name, property.value]));
    expect(properties).toMatchObject({ agent_calls: '1', cached_calls: '0', tokens_input: '1200', tokens_output: '300', tokens_total: '1500', cost: '0.0081', cost_currency: 'USD', unpriced_calls: '0' });
  });

  it('says only what is known: no tokens when none were reported, unpriced calls and their models', () => {
    const base = { calls: 3, requests: 3, cached_calls: 0, reported_calls: 0, tokens: { input: 0, output: 0, total: 0 }, cached_tokens: { input: 0, output: 0, total: 0 }, latency_ms: { sum: 30, mean: 10, p50: 9, p95: 12 } };
    expect(usageLine(base)).toBe('3 calls, no token usage reported, latency p50 9 ms, p95 12 ms');
    expect(usageLine({ ...base, reported_calls: 2, tokens: { input: 10, output: 5, total: 15 }, cost: { currency: 'EUR', total: 0.5, priced_calls: 1, unpriced_calls: 2, unpriced_models: ['m-x'], saved_by_cache: 0 } }))
      .toBe('3 calls, 15 tokens (10 in, 5 out; 1 call reported none), latency p50 9 ms, p95 12 ms, cost 0.5 EUR (2 calls unpriced: m-x)');
    expect(usageLine({ ...base, calls: 0, requests: 0, latency_ms: { sum: 0, mean: null, p50: null, p95: null } })).toBe('0 calls');
    expect(usageLine({ ...base, requests: 9 })).toBe('3 calls (9 requests: tool rounds), no token usage reported, latency p50 9 ms, p95 12 ms');
  });
});
