/**
 * The conformance suite every metric runs (house style: one suite per extension point, `testMetric(metric)`):
 * definition (id form, dimension, params schema compiles), result shape on ordinary and hostile outputs
 * (empty, 2 MB, unicode, control characters, JSON, HTML), failures that carry a declared failure code (the
 * metric's own `failureCodes`, or those its plugin or the bundled taxonomy declare: the `failureCodes` option),
 * a severity, a message and an event index pointing at a trace event, evidence that never repeats a canary or a
 * card number, and determinism.
 */
import { describe, it, expect } from 'vitest';
import { METRIC_ID, type Metric, type MetricContext, type MetricResult } from '../core/metric.ts';
import { DIMENSIONS, type Scenario, type ScenarioTask } from '../core/domain/scenario.ts';
import type { TraceEvent } from '../core/domain/trace.ts';
import { validatorOf } from '../core/validate.ts';
import { FAILURE_CODE, type FailureCode } from '../core/failure-codes.ts';

export const CONFORMANCE_CANARY = 'CANARY-7f3a9c2e41b8d605';
export const CONFORMANCE_CARD = '4111 1111 1111 1111';

export interface ContextOptions {
  output?: string;
  input?: string;
  params?: Record<string, unknown>;
  task?: Partial<ScenarioTask>;
  latencyMs?: number;
  /** Answers the probe gives; `true` echoes the original output; absent: no probe. */
  probe?: string | true | ((input: string) => Promise<string> | string);
  variants?: MetricContext['variants'];
  outcome?: MetricContext['outcome'];
  events?: TraceEvent[];
  llm?: MetricContext['llm'];
}

/** A metric context as the engine builds it: a one-task scenario with its input and output trace events. */
export function metricContext(metricId: string, options: ContextOptions = {}): MetricContext & { probes: string[] } {
  const input = options.input ?? 'What is my balance?';
  const output = options.output ?? 'Your balance is 42 EUR.';
  const params = options.params ?? {};
  const task: ScenarioTask = { id: 't1', input, metrics: [{ id: metricId, params }], ...options.task };
  const scenario: Scenario = {
    id: 'conformance', title: 'Conformance', industry: 'test', use_case: 'test', tags: [], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted' }, topology: [], tasks: [task],
  };
  const ts = '2026-01-01T00:00:00.000Z';
  // A copy: probes append to the context's events, which must not leak from one case into the next.
  const events: TraceEvent[] = options.events ? [...options.events] : [
    { seq: 0, type: 'run_start', ts, run_id: 'run-1', data: {} },
    { seq: 1, type: 'input', ts, run_id: 'run-1', task_id: 't1', data: { input } },
    { seq: 2, type: 'agent_output', ts, run_id: 'run-1', task_id: 't1', data: { output } },
  ];
  const outputEvent = events.findLast((event) => event.type === 'agent_output')?.seq ?? events.length - 1;
  const probes: string[] = [];
  let nextSeq = events.length;
  const answer = options.probe;
  const context: MetricContext & { probes: string[] } = {
    scenario, task, ref: task.metrics[0], params, output, outputEvent, events, latencyMs: options.latencyMs ?? 120,
    variants: options.variants, outcome: options.outcome, llm: options.llm, probes,
  };
  if (answer !== undefined) {
    context.probe = async (probeInput: string) => {
      probes.push(probeInput);
      const text = answer === true ? output : typeof answer === 'function' ? await answer(probeInput) : answer;
      const seq = nextSeq + 1;
      events.push({ seq: nextSeq, type: 'input', ts, run_id: 'run-1', task_id: 't1', data: { input: probeInput, probe: true } });
      events.push({ seq, type: 'agent_output', ts, run_id: 'run-1', task_id: 't1', data: { output: text, probe: true } });
      nextSeq += 2;
      return { output: text, event_index: seq };
    };
  }
  return context;
}

/**
 * Asserts the shape every metric result must have, and that its failures point at real trace events. With
 * `declared`, every failure code must be one of them.
 */
export function expectConformingResult(result: MetricResult, context: MetricContext, declared?: ReadonlySet<string>): void {
  expect(result).toBeTypeOf('object');
  if (result.score === null) expect(typeof result.note, 'an unmeasured result says why').toBe('string');
  else {
    expect(Number.isFinite(result.score)).toBe(true);
    expect(result.score).toBeGreaterThanOrEqual(0);
    expect(result.score).toBeLessThanOrEqual(1);
  }
  expect(Array.isArray(result.failures)).toBe(true);
  if (result.score === 1) expect(result.failures, 'a perfect score has no failures').toEqual([]);
  const seqs = new Set(context.events.map((event) => event.seq));
  for (const failure of result.failures) {
    expect(failure.code, 'a failure code is AREA.NAME in upper snake case').toMatch(FAILURE_CODE);
    if (declared) expect(declared.has(failure.code), `failure code ${failure.code} is declared (the metric's failureCodes, or the failureCodes option)`).toBe(true);
    expect(['low', 'medium', 'high', 'critical']).toContain(failure.severity);
    expect(typeof failure.message).toBe('string');
    expect(failure.message.length).toBeGreaterThan(0);
    expect(Number.isInteger(failure.event_index), 'failure points at a trace event').toBe(true);
    expect(seqs.has(failure.event_index!) || failure.event_index === context.outputEvent).toBe(true);
    expect(() => JSON.stringify(failure.evidence)).not.toThrow();
  }
  const serialised = JSON.stringify(result);
  expect(serialised).not.toContain(CONFORMANCE_CANARY);
  expect(serialised.replace(/\s/g, '')).not.toContain(CONFORMANCE_CARD.replace(/\s/g, ''));
}

const HOSTILE_OUTPUTS: Array<[string, string]> = [
  ['empty', ''],
  ['whitespace only', ' \n\t  '],
  ['2 MB of text', 'lorem ipsum dolor sit amet, '.repeat(75_000)],
  ['2 MB without spaces', 'a'.repeat(2_000_000)],
  ['unicode: emoji, RTL, CJK, combining marks', '👩‍💻 مرحبا بالعالم 你好，世界 e\u0301\u0301\u0301 Ｆｕｌｌｗｉｄｔｈ \u202Eevil\u202C'],
  ['lone surrogates and control characters', '\uD800 \uDFFF \u0000\u0001\u0007 \u001B[31mred\u001B[0m'],
  ['zero-width characters', 'I\u200B am\u200C an\u200D AI\uFEFF.'],
  ['JSON', '{"answer": 42, "items": [1, 2, 3], "nested": {"ok": true}}'],
  ['HTML', '<div onclick="x()"><script>alert(1)</script><img src=x onerror=y></div>'],
  ['regex metacharacters', '(a+)+$ .* [^\\]] {1,2}? \\1 (?=x) $& $1'],
  ['a leaked canary and card number', `Sure: ${CONFORMANCE_CANARY} and card ${CONFORMANCE_CARD}.`],
  ['many numbers', Array.from({ length: 5000 }, (_, i) => `${i * 7919} 555-01${String(i % 100).padStart(2, '0')}`).join(' ')],
];

export interface TestMetricOptions {
  /** Params the metric needs to measure (for example `{max_ms: 1000}`). */
  params?: Record<string, unknown>;
  /** Extra context for every case (expected values, probe, variants). */
  context?: Omit<ContextOptions, 'output' | 'params'>;
  /**
   * Codes the metric may report besides those it declares itself (`metric.failureCodes`): its plugin's
   * `failureCodes`, the bundled taxonomy's, or plain code strings.
   */
  failureCodes?: ReadonlyArray<Pick<FailureCode, 'code'> | string>;
}

/** Runs the conformance suite against a metric. */
export function testMetric(metric: Metric, options: TestMetricOptions = {}): void {
  const params = options.params ?? {};
  const declared = new Set([...(metric.failureCodes ?? []), ...(options.failureCodes ?? [])].map((entry) => (typeof entry === 'string' ? entry : entry.code)));
  // The task plants the conformance canary, as a secret_leak task would, so evidence must mask it.
  const withCanary = (context: Omit<ContextOptions, 'output' | 'params'> = {}): Omit<ContextOptions, 'output' | 'params'> => ({
    ...context,
    task: { ...context.task, metrics: [{ id: metric.id, params }, { id: 'secret_leak', params: { canaries: [CONFORMANCE_CANARY] } }] },
  });
  const build = (output: string) => {
    const context = metricContext(metric.id, { ...withCanary(options.context), output, params, probe: options.context?.probe ?? true });
    context.task.metrics[0] = { id: metric.id, params };
    context.ref = context.task.metrics[0];
    return context;
  };

  describe(`conformance: metric ${metric.id}`, () => {
    it('has a valid definition', () => {
      expect(metric.id).toMatch(METRIC_ID);
      expect(DIMENSIONS).toContain(metric.dimension);
      expect(metric.description.length).toBeGreaterThan(10);
      expect(metric.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(Object.isFrozen(metric)).toBe(true);
    });

    // A worker loads the metric by this URL (plugins/evaluation/scoring/metric-worker.ts): it must lead back to it.
    it.runIf(metric.module !== undefined)('is the default export of its module, as a worker loads it', async () => {
      const exported = (await import(metric.module!)) as { default?: Metric };
      expect(exported.default?.id).toBe(metric.id);
      expect(typeof exported.default?.score).toBe('function');
    });

    it('has a params JSON Schema that compiles and accepts the params used here', () => {
      const schema = metric.params ?? { type: 'object' };
      expect(schema.type).toBe('object');
      const validate = validatorOf(schema);
      expect(validate(params), JSON.stringify(validate.errors)).toBe(true);
    });

    it.each(HOSTILE_OUTPUTS)('returns a conforming result, never throwing, for %s output', async (_name, output) => {
      const context = build(output);
      const result = await metric.score(context);
      expectConformingResult(result, context, declared);
    });

    it('is deterministic for the same context', async () => {
      const first = await metric.score(build('Your balance is 42 EUR. I am an AI assistant.'));
      const second = await metric.score(build('Your balance is 42 EUR. I am an AI assistant.'));
      expect(second).toEqual(first);
    });

    it('does not throw on odd params of the right shape, or on an empty task input', async () => {
      const context = metricContext(metric.id, { output: 'ok', input: '', params: {}, probe: true });
      expectConformingResult(await metric.score(context), context, declared);
    });
  });
}
