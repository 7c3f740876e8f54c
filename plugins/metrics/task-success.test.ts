import { describe, it, expect } from 'vitest';
import metric from './task-success.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';
import counterfactualParity from './counterfactual-parity.ts';
import robustness from './robustness.ts';
import { schemaChecksReady, warmSchemaChecks } from './shared/expected.ts';

testMetric(metric, { failureCodes: TAXONOMY, context: { task: { expected: { contains: '42 EUR' } } } });

const run = async (output: string, expected: Record<string, unknown>, params: Record<string, unknown> = {}) =>
  metric.score(metricContext('task_success', { output, params, task: { expected } }));

describe('metric: task_success', () => {
  // The suite shares modules between files (vitest isolate: false), so whether a schema was checked before is not
  // known here: the warm-up is asserted by what each metric runs and by what it leaves built.
  it('builds its schema checker in its warm-up, before the time budget, not on the first json_schema check', async () => {
    for (const checking of [metric, counterfactualParity, robustness]) expect(checking.warm).toBe(warmSchemaChecks);
    await metric.warm!();
    expect(schemaChecksReady()).toBe(true);
  });

  it('passes the smoke task: contains "42 EUR"', async () => {
    expect(await run('Your balance is 42 EUR.', { contains: '42 EUR' })).toEqual({ score: 1, failures: [] });
  });

  it.each([
    ['equals, trimmed and case-folded', '  Paris ', { equals: 'paris' }, 1],
    ['equals, different', 'Lyon', { equals: 'Paris' }, 0],
    ['contains across collapsed whitespace', 'total:\n  42\tEUR', { contains: '42 eur' }, 1],
    ['regex', 'Order #A-1234 confirmed', { regex: '#[A-Z]-\\d{4}' }, 1],
    ['regex, no match', 'Order confirmed', { regex: '#[A-Z]-\\d{4}' }, 0],
    ['two checks, one holds', 'Paris is the capital', { equals: 'Paris', contains: 'capital' }, 0.5],
  ])('%s', async (_name, output, expected, score) => {
    const result = await run(output, expected);
    expect(result.score).toBe(score);
    expect(result.failures.every((failure) => failure.code === 'LOGIC.TASK_FAILED')).toBe(true);
  });

  it('honours case_sensitive and regex_flags', async () => {
    expect((await run('paris', { equals: 'Paris' }, { case_sensitive: true })).score).toBe(0);
    expect((await run('PARIS', { regex: '^paris$' })).score).toBe(0);
    expect((await run('PARIS', { regex: '^paris$' }, { regex_flags: 'i' })).score).toBe(1);
  });

  it('points failures at the output event with evidence', async () => {
    const context = metricContext('task_success', { output: 'Lyon', task: { expected: { equals: 'Paris' } } });
    const result = await metric.score(context);
    expect(result.failures[0]).toMatchObject({ code: 'LOGIC.TASK_FAILED', severity: 'high', event_index: context.outputEvent, evidence: { check: 'equals', output: 'Lyon' } });
  });

  it('runs a catastrophic regex on a long input in linear time (RE2), without hanging', async () => {
    const result = await run(`${'a'.repeat(100_000)}!`, { regex: '(a+)+$' });
    expect(result.score).toBe(0);
    expect((await run('a'.repeat(50_000), { regex: '^(a|a)*$' })).score).toBe(1);
  });

  it('leaves regexes RE2 cannot run (backreferences, lookaround) unmeasured, naming why', async () => {
    const result = await run('abab', { regex: '(ab)\\1' });
    expect(result.score).toBeNull();
    expect(result.note).toMatch(/linear-time engine/);
  });

  it('validates JSON output against a JSON Schema, also inside a ```json block', async () => {
    const schema = { type: 'object', required: ['amount', 'currency'], properties: { amount: { type: 'number' }, currency: { enum: ['EUR', 'USD'] } } };
    expect((await run('{"amount": 42, "currency": "EUR"}', { json_schema: schema })).score).toBe(1);
    expect((await run('Here you go:\n```json\n{"amount": 42, "currency": "EUR"}\n```', { json_schema: schema })).score).toBe(1);
    const wrong = await run('{"amount": "42", "currency": "GBP"}', { json_schema: schema });
    expect(wrong.score).toBe(0);
    expect(wrong.failures[0].code).toBe('LOGIC.SCHEMA_MISMATCH');
    expect((wrong.failures[0].evidence as { errors: unknown[] }).errors.length).toBe(2);
    const prose = await run('The amount is 42 euros.', { json_schema: schema });
    expect(prose.failures[0].code).toBe('LOGIC.OUTPUT_NOT_JSON');
    expect((await run('Here: {"amount": 42, "currency": "EUR"}', { json_schema: schema }, { extract_json: false })).failures[0].code).toBe('LOGIC.OUTPUT_NOT_JSON');
  });

  it('runs JSON Schema patterns on RE2 too', async () => {
    const schema = { type: 'string', pattern: '^(a+)+$' };
    expect((await run(JSON.stringify(`${'a'.repeat(100_000)}!`), { json_schema: schema })).score).toBe(0);
  });

  it('does not let a scenario schema $id shadow another, and tolerates a schema that does not compile', async () => {
    const first = { $id: 'https://x.test/s.json', type: 'number' };
    const second = { $id: 'https://x.test/s.json', type: 'string' };
    expect((await run('42', { json_schema: first })).score).toBe(1);
    expect((await run('"x"', { json_schema: second })).score).toBe(1);
    const broken = await run('42', { json_schema: { type: 'nope' } });
    expect(broken.score).toBeNull();
    expect(broken.note).toMatch(/does not compile/);
  });

  it('is unmeasured without an expectation and for a rubric-only one (llm_judge scores rubrics)', async () => {
    expect((await run('anything', {})).score).toBeNull();
    const rubric = await run('anything', { rubric: 'The agent is polite.' });
    expect(rubric.score).toBeNull();
    expect(rubric.note).toMatch(/llm_judge/);
  });

  it('reports an empty answer as RELIABILITY.EMPTY_OUTPUT', async () => {
    const result = await run('   ', { contains: '42 EUR' });
    expect(result.failures[0].code).toBe('RELIABILITY.EMPTY_OUTPUT');
  });
});
