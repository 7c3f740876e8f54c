/**
 * Whether one verdict policy is weaker than another (issue 32 item 5): a release gate that reads `status` must be
 * able to tell a `pass` under the defaults from a `pass` under a policy someone loosened. The certificate signs
 * which fields were loosened against the defaults (`compliance.policy_relaxed`), `aeh verify --policy-at-least`
 * fails a certificate signed under a weaker policy than the gate's, and an operator's floor (`AEH_VERDICT_FLOOR`)
 * refuses a run below it unless its submitter may relax the verdict (`verdict:relax`).
 *
 * A policy is weaker in a field when it gates less: a higher `fail_on_severity` (`none` the highest), a `must_pass`
 * without one of the reference's entries, a lower `min_pass_rate` or `pass_threshold`.
 */
import { check, describeErrors } from '../validate.ts';
import { Problem } from '../problems.ts';
import { DEFAULT_VERDICT_POLICY, SEVERITIES, verdictPolicySchema, type VerdictPolicy, type VerdictPolicyInput } from './verdict-policy.ts';

/** One field in which a policy gates less than its reference. */
export interface PolicyLoosening {
  field: keyof VerdictPolicy;
  /** The value applied. */
  applied: unknown;
  /** The reference's value (the defaults, a floor, or a gate's policy). */
  reference: unknown;
}

/** `fail_on_severity` as a rank: the higher, the fewer failures it gates. */
const severityRank = (value: VerdictPolicy['fail_on_severity']) => (value === 'none' ? SEVERITIES.length : SEVERITIES.indexOf(value));

/**
 * The fields in which `applied` gates less than `reference` (every field `reference` gives), in the policy's
 * field order; empty when `applied` is at least as strict.
 */
export function policyLoosenings(applied: VerdictPolicy, reference: VerdictPolicyInput = DEFAULT_VERDICT_POLICY): PolicyLoosening[] {
  const found: PolicyLoosening[] = [];
  if (reference.fail_on_severity !== undefined && severityRank(applied.fail_on_severity) > severityRank(reference.fail_on_severity)) {
    found.push({ field: 'fail_on_severity', applied: applied.fail_on_severity, reference: reference.fail_on_severity });
  }
  if (reference.must_pass !== undefined && reference.must_pass.some((id) => !applied.must_pass.includes(id))) {
    found.push({ field: 'must_pass', applied: [...applied.must_pass], reference: [...reference.must_pass] });
  }
  if (reference.min_pass_rate !== undefined && applied.min_pass_rate < reference.min_pass_rate) {
    found.push({ field: 'min_pass_rate', applied: applied.min_pass_rate, reference: reference.min_pass_rate });
  }
  if (reference.pass_threshold !== undefined && applied.pass_threshold < reference.pass_threshold) {
    found.push({ field: 'pass_threshold', applied: applied.pass_threshold, reference: reference.pass_threshold });
  }
  return found;
}

/** The loosenings in words: `must_pass [] (reference ["declared"]); fail_on_severity critical (reference high)`. */
export function describeLoosenings(loosenings: readonly PolicyLoosening[]): string {
  return loosenings.map((item) => `${item.field} ${JSON.stringify(item.applied)} (at least ${JSON.stringify(item.reference)})`).join('; ');
}

/**
 * A reference policy as an operator or a gate writes it: `default` (the defaults), or a JSON object with any of
 * the policy's fields (each a floor; a field left out is not). Throws an `Error` whose message says what is wrong,
 * prefixed with `what` (the variable or option it came from).
 */
export function parseReferencePolicy(text: string, what: string): VerdictPolicyInput {
  const trimmed = text.trim();
  if (trimmed === 'default') return { ...DEFAULT_VERDICT_POLICY, must_pass: [...DEFAULT_VERDICT_POLICY.must_pass] };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new Error(`${what} must be "default" or a JSON verdict policy such as {"fail_on_severity":"high","must_pass":["declared"]}`);
  }
  const errors = check(verdictPolicySchema, value);
  if (errors.length) throw new Error(`${what} is not a verdict policy: ${describeErrors(errors)}`);
  return value as VerdictPolicyInput;
}

/** The permission that lets a submitter run below the operator's floor (`AEH_VERDICT_FLOOR`). */
export const RELAX_PERMISSION = 'verdict:relax';

/** One layer of a run's policy and where it was written, for the 403 that names the field. */
export interface PolicyLayer {
  policy?: VerdictPolicyInput;
  /** The JSON Pointer of the layer in the request (`/verdict`, `/scenario/verdict`). */
  at: string;
}

/**
 * Refuses (403 `forbidden`) a policy below the operator's `floor` unless `mayRelax`, naming the field of the layer
 * that set each loosened value (the last layer that gives the field; the defaults are never below a floor the
 * operator could not also set for them).
 */
export function assertAboveFloor(applied: VerdictPolicy, floor: VerdictPolicyInput | undefined, layers: readonly PolicyLayer[], mayRelax: boolean): void {
  if (!floor || mayRelax) return;
  const below = policyLoosenings(applied, floor);
  if (below.length === 0) return;
  const errors = below.map((item) => {
    const layer = [...layers].reverse().find((candidate) => candidate.policy?.[item.field] !== undefined);
    return { path: `${layer?.at ?? '/verdict'}/${item.field}`, message: `${JSON.stringify(item.applied)} is below this service's verdict floor (${JSON.stringify(item.reference)}, AEH_VERDICT_FLOOR): only a principal with ${RELAX_PERMISSION} may relax it` };
  });
  throw new Problem('forbidden', { detail: `the verdict policy is below this service's floor: ${describeErrors(errors)}`, errors });
}

/**
 * The defaults raised to `floor` where the floor is stricter, so that a run whose scenario and request leave a
 * field unset applies the floor's value rather than fall below it; `undefined` without a floor.
 */
export function floorDefaults(floor: VerdictPolicyInput | undefined): VerdictPolicyInput | undefined {
  if (!floor) return undefined;
  const raised: VerdictPolicyInput = {};
  for (const item of policyLoosenings(DEFAULT_VERDICT_POLICY, floor)) {
    if (item.field === 'must_pass') raised.must_pass = [...new Set([...DEFAULT_VERDICT_POLICY.must_pass, ...floor.must_pass!])];
    else (raised as Record<string, unknown>)[item.field] = floor[item.field];
  }
  return raised;
}

/**
 * The weakest of several policies, field by field (the highest `fail_on_severity`, the `must_pass` entries all
 * share, the lowest rates): what a suite of runs under these policies was held to. `undefined` for none.
 */
export function weakestPolicy(policies: readonly VerdictPolicy[]): VerdictPolicy | undefined {
  if (policies.length === 0) return undefined;
  const [first, ...rest] = policies as [VerdictPolicy, ...VerdictPolicy[]];
  const weakest: VerdictPolicy = { ...first, must_pass: [...first.must_pass] };
  for (const policy of rest) {
    if (severityRank(policy.fail_on_severity) > severityRank(weakest.fail_on_severity)) weakest.fail_on_severity = policy.fail_on_severity;
    weakest.must_pass = weakest.must_pass.filter((id) => policy.must_pass.includes(id));
    weakest.min_pass_rate = Math.min(weakest.min_pass_rate, policy.min_pass_rate);
    weakest.pass_threshold = Math.min(weakest.pass_threshold, policy.pass_threshold);
  }
  return weakest;
}
