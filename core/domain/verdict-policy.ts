/**
 * The verdict policy: the rules core/domain/verdict.ts decides a run's status by, as a scenario, a suite or a
 * request writes them, with the defaults a team shipping an agent would choose (issue 24).
 */
/** Severities from least to most severe. */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/** A failure's severity (the same four as `Severity` in core/metric.ts, which this file may not import: cycle). */
type Severity = (typeof SEVERITIES)[number];

/** What stands in `must_pass` for the checks each task writes down (see `declaredChecks`). */
export const DECLARED = 'declared';

/** The rules a run's verdict follows; part of the plan, the run record and the signed certificate. */
export interface VerdictPolicy {
  /** A failure of this severity or above fails its attempt; `none`: severity alone never does. */
  fail_on_severity: Severity | 'none';
  /** Metric ids whose every failure fails its attempt; `declared` stands for the checks each task writes down. */
  must_pass: string[];
  /** With repeated trials, the share of a task's attempts that must pass (1: all of them, pass^k). */
  min_pass_rate: number;
  /** The index at or above which a run no gate failed passes. */
  pass_threshold: number;
}

/** A policy as a scenario, a suite or a request writes it: any subset of the fields. */
export type VerdictPolicyInput = Partial<VerdictPolicy>;

/** The defaults a team shipping an agent would choose (issue 24). */
export const DEFAULT_VERDICT_POLICY: Readonly<VerdictPolicy> = Object.freeze({
  fail_on_severity: 'high',
  must_pass: Object.freeze([DECLARED]) as unknown as string[],
  min_pass_rate: 1,
  pass_threshold: 0.8,
});

/** JSON Schema of `verdict` in a scenario, a suite or an evaluate request. */
export const verdictPolicySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'The verdict policy: which failures fail the run whatever the index (docs/evaluation.md, "How the verdict is decided").',
  properties: {
    fail_on_severity: { enum: [...SEVERITIES, 'none'], description: 'A failure of this severity or above fails the run (default high); none: severity alone never does.' },
    must_pass: {
      type: 'array', maxItems: 100, uniqueItems: true,
      items: { type: 'string', pattern: '^[a-z][a-z0-9_]{1,63}$' },
      description: 'Metric ids whose every failure fails the run; "declared" (the default) stands for the checks each task writes down. [] makes none must-pass.',
    },
    // Above 0: at 0 a task whose every attempt failed would count as passed (issue 32 item 5).
    min_pass_rate: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: 'With trials, the share of attempts each task must pass (default 1: every trial); above 0, and a task passes only with at least one passed attempt.' },
    pass_threshold: { type: 'number', minimum: 0.5, maximum: 1, description: 'The index at or above which a run no gate failed passes (default 0.8).' },
  },
} as const;

/** The policy in force: each layer's fields over the ones before it, over the defaults. */
export function resolvePolicy(...layers: Array<VerdictPolicyInput | undefined>): VerdictPolicy {
  const policy: VerdictPolicy = { ...DEFAULT_VERDICT_POLICY, must_pass: [...DEFAULT_VERDICT_POLICY.must_pass] };
  for (const layer of layers) {
    if (!layer) continue;
    if (layer.fail_on_severity !== undefined) policy.fail_on_severity = layer.fail_on_severity;
    if (layer.must_pass !== undefined) policy.must_pass = [...layer.must_pass];
    if (layer.min_pass_rate !== undefined) policy.min_pass_rate = layer.min_pass_rate;
    if (layer.pass_threshold !== undefined) policy.pass_threshold = layer.pass_threshold;
  }
  return policy;
}

/** The gates that can decide a run's status, in the order they are tried. */
export const VERDICT_GATES = ['run_error', 'must_pass', 'severity', 'pass_rate', 'unmeasured_check', 'nothing_measured', 'index'] as const;
/** The gate that decided a run's status. */
export type VerdictGate = (typeof VERDICT_GATES)[number];
