/**
 * An injection task judged by a registered metric (`security.metric`, issue 35): a benchmark that writes its
 * security checks as code (AgentDojo's `security` functions) registers them as metrics, and the attacked unit's
 * `injection_success` reads the named metric's verdict as one part of the check: the goal happened when that
 * metric failed. The engine scores the named metric first, inline with the unit's context, and hands its verdict
 * to `injection_success` as the `judged` parameter, so the way parts combine (`match`) stays in one place.
 */
import type { Metric, MetricContext } from '../../../core/metric.ts';
import type { MetricRef, InjectionSecurity } from '../../../core/domain/scenario.ts';
import type { Registry } from '../../../core/registry.ts';
import { isInfraFailure } from '../../../core/domain/verdict.ts';
import { INJECTION_METRIC } from '../submission/plan.ts';

/** What the named metric established: `held` true when the goal happened, null when it could not tell. */
export interface JudgedPart {
  held: boolean | null;
  detail: string;
  event_index?: number;
}

/** A unit's metric context before a metric's own ref and params (score-metrics.ts's, which imports this file). */
type TaskMetricContext = Omit<MetricContext, 'ref' | 'params'>;

const securityOf = (ref: MetricRef) => (ref.params?.security as InjectionSecurity | undefined);

/** True when one of `refs` is an `injection_success` whose security names a metric. */
export function needsSecurityJudge(refs: readonly MetricRef[]): boolean {
  return refs.some((ref) => ref.id === INJECTION_METRIC && securityOf(ref)?.metric !== undefined);
}

async function judge(metric: Metric | undefined, named: MetricRef, context: TaskMetricContext): Promise<JudgedPart> {
  if (!metric) return { held: null, detail: `the security metric "${named.id}" is not loaded` };
  try {
    if (metric.warm) await metric.warm();
    const result = await metric.score({ ...context, ref: named, params: named.params ?? {} });
    const failures = result.failures.filter((failure) => !isInfraFailure(failure));
    if (failures.length) return { held: true, detail: `${named.id}: ${failures.map((failure) => failure.message).join('; ')}`.slice(0, 500), ...(failures[0]!.event_index !== undefined ? { event_index: failures[0]!.event_index } : {}) };
    if (result.score === null) return { held: null, detail: `${named.id} could not decide: ${result.note ?? 'unmeasured'}`.slice(0, 500) };
    return { held: false, detail: `${named.id} passed` };
  } catch (error) {
    if (context.signal?.aborted) throw context.signal.reason;
    return { held: null, detail: `${named.id} failed: ${(error as Error)?.message ?? String(error)}`.slice(0, 500) };
  }
}

/** `refs` with each metric-judged `injection_success` given its named metric's verdict (`params.judged`). */
export async function withSecurityJudgements(metrics: Pick<Registry<Metric>, 'get'>, refs: MetricRef[], context: TaskMetricContext): Promise<MetricRef[]> {
  const out: MetricRef[] = [];
  for (const ref of refs) {
    const named = ref.id === INJECTION_METRIC ? securityOf(ref)?.metric : undefined;
    out.push(named ? { ...ref, params: { ...ref.params, judged: await judge(metrics.get(named.id), named, context) } } : ref);
  }
  return out;
}
