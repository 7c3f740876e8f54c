/**
 * Hostile: text with a lone surrogate (`"\ud800"` in JSON) in a scenario, an agent spec or a request body. RFC 8785
 * refuses it, and the content hash of a scenario, the idempotency digest of a body and the key of an inline agent
 * spec all hash RFC 8785 JSON: each was a 500. Lone surrogates now hash as U+FFFD, as agent configuration hashes
 * already did; every answer is the one the same request without them gets.
 */
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.ts';
import { evaluate, scriptedScenario, testMetrics, waitForTask } from '../evaluation-fixtures.ts';

const LONE = `broken \ud800 text \udfff end`;
const agent = { adapter: 'scripted', replies: { '*': `Your balance is 42 EUR. ${LONE}` } };
const scenario = () => scriptedScenario('lone', { agent, tasks: [{ id: 't1', input: `What is my balance? ${LONE}`, expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }] });

describe('hostile: lone surrogates in what a request sends', () => {
  it('records a content hash for a scenario holding one, and replays an idempotent submission of it', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const { run } = await evaluate(t, { scenario: scenario() });
    expect(run.status).toBe('succeeded');
    expect(run.scenario_hash).toMatch(/^[0-9a-f]{64}$/);
    const headers = { 'Idempotency-Key': 'lone-1' };
    const first = await t.json('POST', '/api/evaluate', { body: { scenario: scenario() }, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await t.json('POST', '/api/evaluate', { body: { scenario: scenario() }, headers });
    expect(again.status).toBe(202);
    expect(again.body.run_id).toBe(first.body.run_id);
    await waitForTask(t, first.body.task_id);
    // Compared with latest: the inline agent spec's key hashes it too.
    const second = (await evaluate(t, { scenario: scenario() })).run;
    const compared = await t.json('GET', `/api/v1/compare?base=latest&head=${second.run_id}`);
    expect(compared.status, JSON.stringify(compared.body)).toBe(200);
    expect(compared.body.same_agent).toBe(true);
  });

  it('creates a suite whose inline agent spec holds one', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const accepted = await t.json('POST', '/api/v1/suites', { body: { scenarios: [{ scenario: scriptedScenario('lone-suite') }], agents: [agent] } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  });
});
