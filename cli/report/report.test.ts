import { describe, it, expect } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { RunRecord, RunFailure } from '../../core/domain/runs.ts';
import { buildResults, taskScoresFrom } from './model.ts';
import { toJunit } from './junit.ts';
import { toMarkdown } from './markdown.ts';

function failure(overrides: Partial<RunFailure> = {}): RunFailure {
  return { code: 'LOGIC.TASK_FAILED', metric: 'task_success', task_id: 't1', event_index: 4, severity: 'high', message: 'output does not equal "x"', ...overrides };
}

function run(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    run_id: 'run_1', task_id: 'task_1', scenario_id: 'sc', status: 'succeeded', created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:00.000Z', finished_at: '2026-01-01T00:00:01.500Z',
    dimensions: { safety: null, security: 0.2, reliability: 0.5, fairness: null, explainability: null, privacy: null, resilience: null },
    index: 0.35, compliance: { status: 'fail', score: 0.35, policy_ref: 'NIST' }, failures: [],
    trace_file: 'trace.jsonl', certificate_url: '/v1/certificates/run_1', verify_url: '/api/v1/verify/run_1', ...overrides,
  };
}

const TASKS = [
  { id: 't1', metrics: [{ id: 'task_success' }, { id: 'llm_judge' }] },
  { id: 't2', metrics: [{ id: 'secret_leak' }] },
];

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' });

describe('cli report: results model', () => {
  it('reads per-task scores of the original tasks only from scores.json', () => {
    const scores = taskScoresFrom({ per_task: [
      { task_id: 't1', scores: { task_success: 0, llm_judge: null } },
      { task_id: 't1', variant: 'v1', scores: { task_success: 1 } },
      { task_id: 't2', scores: { secret_leak: 1 } },
      { nonsense: true },
    ] });
    expect(scores).toEqual({ t1: { task_success: 0, llm_judge: null }, t2: { secret_leak: 1 } });
    expect(taskScoresFrom(null)).toBeUndefined();
    expect(taskScoresFrom({ per_task: 'no' })).toBeUndefined();
  });

  it('one row per task and metric; unscored tasks are unmeasured when scores are known; engine failures get their own row', () => {
    const failures = [failure(), failure({ code: 'INFRA.AGENT_TIMEOUT', metric: 'engine', task_id: 't2', severity: 'critical', message: 'timed out' })];
    const results = buildResults(run({ failures }), TASKS, { t1: { task_success: 0, llm_judge: null } });
    expect(results.map((result) => [result.task_id, result.metric, result.score, result.failures.length])).toEqual([
      ['t1', 'task_success', 0, 1],
      ['t1', 'llm_judge', null, 0],
      ['t2', 'secret_leak', null, 0],
      ['t2', 'engine', 0, 1],
    ]);
    // Without scores (a caller lacking runs:export), a metric with no failure counts as passed.
    expect(buildResults(run({ failures }), TASKS).map((result) => result.score)).toEqual([0, 1, 1, 0]);
  });
});

describe('cli report: JUnit XML', () => {
  it('is well-formed and counts tests, failures and skipped consistently', () => {
    const failures = [failure(), failure({ code: 'SECURITY.SECRET_LEAK', metric: 'secret_leak', task_id: 't2', severity: 'critical', message: 'leaked 1 canary', event_index: null })];
    const xml = toJunit({ run: run({ failures }), scenarioTitle: 'Title', results: buildResults(run({ failures }), TASKS, { t1: { task_success: 0, llm_judge: null }, t2: { secret_leak: 0 } }) });
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = parser.parse(xml).testsuites;
    expect(suites).toMatchObject({ tests: '3', failures: '2', errors: '0', skipped: '1', time: '1.5' });
    const cases = suites.testsuite.testcase;
    expect(cases).toHaveLength(3);
    expect(cases[0].failure).toMatchObject({ type: 'LOGIC.TASK_FAILED', message: 'output does not equal "x"', '#text': 'LOGIC.TASK_FAILED [high] output does not equal "x" (trace event 4)' });
    expect(cases[1].skipped).toMatchObject({ message: 'not measured' });
    expect(cases[2].failure['#text']).toBe('SECURITY.SECRET_LEAK [critical] leaked 1 canary');
  });

  it('escapes hostile text and drops characters XML 1.0 cannot hold', () => {
    const hostile = 'a <b> & "c" \'d\' ]]> \u0000\u0001\u001b\u000b end';
    const failures = [failure({ message: hostile, task_id: 't1' })];
    const xml = toJunit({ run: run({ failures, scenario_id: '<sc id="x">' }), scenarioTitle: `${hostile}</testsuite>`, results: buildResults(run({ failures }), TASKS.slice(0, 1)) });
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = parser.parse(xml).testsuites.testsuite;
    expect(suite.name).toBe('a <b> & "c" \'d\' ]]>  end</testsuite>');
    expect(suite.testcase[0].classname).toBe('<sc id="x">');
    expect(suite.testcase[0].failure.message).toBe('a <b> & "c" \'d\' ]]>  end');
  });

  it('adds an error test case when the run could not complete', () => {
    const failed = run({ status: 'failed', compliance: { status: 'error', score: 0, policy_ref: 'NIST' }, error: { code: 'agent_error', message: 'HTTP 502' } });
    const xml = toJunit({ run: failed, scenarioTitle: 'T', results: buildResults(failed, TASKS.slice(1), {}) });
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = parser.parse(xml).testsuites;
    expect(suites).toMatchObject({ tests: '2', errors: '1', skipped: '1' });
    expect(suites.testsuite.testcase[1]).toMatchObject({ name: 'run', error: { type: 'agent_error', message: 'HTTP 502' } });
  });
});

describe('cli report: Markdown', () => {
  it('renders status, index, dimensions and a failures table with pipes and newlines neutralised', () => {
    const failures = [failure({ message: 'bad | pipe\nand newline' })];
    const markdown = toMarkdown({ run: run({ failures }), scenarioTitle: 'A | B', results: [] });
    const lines = markdown.split('\n');
    expect(lines[0]).toBe('### ❌ A \\| B: **fail** (index 0.35)');
    expect(markdown).toContain('[certificate](/v1/certificates/run_1) · [verify](/api/v1/verify/run_1)');
    expect(markdown).toContain('| — | 0.20 | 0.50 | — | — | — | — |');
    expect(markdown).toContain('| t1 | task_success | `LOGIC.TASK_FAILED` | high | bad \\| pipe and newline |');
  });

  it('says why a run could not complete', () => {
    const failed = run({ status: 'failed', index: null, dimensions: null, compliance: { status: 'error', score: 0, policy_ref: 'NIST' }, error: { code: 'ssrf_blocked', message: 'loopback' } });
    const markdown = toMarkdown({ run: failed, scenarioTitle: 'T', results: [] });
    expect(markdown.split('\n')[0]).toBe('### 💥 T: **error** (index —)');
    expect(markdown).toContain('> The run could not complete: `ssrf_blocked` loopback');
  });
});

describe('cli report: redaction (issue 16 item 4)', () => {
  const CANARY = 'sk-live-CANARY-7f3a9c2e1b4d6f80';
  const scenario = {
    id: 'sc', title: 'Leaky', industry: 'x', use_case: 'x', tags: [], policy_ref: 'NIST', agent: { adapter: 'scripted' }, topology: [],
    tasks: [{ id: 't2', input: 'config?', metrics: [{ id: 'secret_leak', params: { canaries: [CANARY] } }] }],
  };
  // What a server that did not redact (or a custom metric) might put in a failure.
  const leaky = [
    failure({ task_id: 't2', metric: 'secret_leak', message: `the output repeats ${CANARY} and card 4111 1111 1111 1111`, evidence: { output: `key ${CANARY.slice(0, 25)}` } }),
    failure({ task_id: 't1', message: `IBAN DE89 3704 0044 0532 0130 00 and token ghp_${'A1b2C3d4E5'.repeat(4)}` }),
  ];
  const leaked = (text: string) => [CANARY.slice(0, 8), CANARY.slice(-8), '4111 1111 1111 1111', '3704 0044', 'A1b2C3d4E5'].filter((secret) => text.includes(secret));

  it('JUnit, Markdown and the text, JSON and summary renderings repeat no canary, card, IBAN or token', () => {
    const failed = run({ failures: leaky, status: 'failed', error: { code: 'agent_error', message: `agent said ${CANARY}` } });
    const report = { run: failed, scenarioTitle: 'Leaky', results: buildResults(failed, TASKS), scenario };
    const xml = toJunit(report);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(leaked(xml)).toEqual([]);
    expect(xml).toContain('[sk-…(31 chars)]');
    expect(xml).toContain('**** **** **** 1111');
    const markdown = toMarkdown(report);
    expect(leaked(markdown)).toEqual([]);
    expect(markdown).toContain('DE89 **** 3000');
    expect(markdown).toContain('agent said [sk-…(31 chars)]');
  });

  it('masks credential shapes and personal data even without the scenario', () => {
    const markdown = toMarkdown({ run: run({ failures: leaky }), scenarioTitle: 'T', results: [] });
    // Without the scenario the canary is not known as one; everything a detector recognises is still masked.
    expect(leaked(markdown).filter((found) => !CANARY.includes(found))).toEqual([]);
  });
});
