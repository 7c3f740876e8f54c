/**
 * Forensic root-cause analysis: `GET /api/v1/explain/:run_id` answers the primary failure trigger, the causal
 * chain of trace events that led to it (walked back through the scenario topology) and concrete
 * recommendations per failure code; a run without a verdict (compliance `error`) also says why (`reason`),
 * which is all there is to say of a run that measured nothing. Deterministic; an LLM narrative is added only on request
 * (`?narrative=true`) when a provider is configured, and marked as such. Every text repeated from the run
 * (event summaries, the trigger's message and evidence, the narrative) passes the `redactor` service first.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { Services } from '../../core/services.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { keys, SIDECARS, type RunFailure, type RunRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';
import { readTraceEvents } from './trace-reader.ts';
import { dimensionOf, rankFailures } from './primary-trigger.ts';
import { causalChain, MAX_SUMMARY, summarise, type ChainLink } from './causal-chain.ts';
import { recommendationFor } from './recommendations.ts';
import { readEvidenceJson } from '../../core/domain/packed-evidence.ts';

/**
 * The scenario in the run's `scenario.json`: the engine stores its run plan there (`{run_id, scenario,
 * variants, …}`); a bare scenario is read as it is.
 */
function scenarioOf(stored: Scenario | { scenario?: Scenario } | null): Scenario | undefined {
  const scenario = stored && 'scenario' in stored && stored.scenario && typeof stored.scenario === 'object' ? stored.scenario : (stored as Scenario | null);
  return scenario && Array.isArray(scenario.tasks) ? scenario : undefined;
}

/**
 * The ranked failures with those that decided the verdict first (the gate's: a failed must-pass check, a
 * failure of gating severity) and the harness's own (`INFRA.*`, no fault of the agent) last.
 */
function byVerdict(ranked: RunFailure[], run: RunRecord): RunFailure[] {
  const gating = new Set((run.verdict?.gate_failures ?? []).map((failure) => `${failure.task_id}\u0000${failure.metric}\u0000${failure.code}\u0000${failure.trial ?? ''}\u0000${failure.variant ?? ''}`));
  const rank = (failure: RunFailure) => (gating.has(`${failure.task_id}\u0000${failure.metric}\u0000${failure.code}\u0000${failure.trial ?? ''}\u0000${failure.variant ?? ''}`) ? 0 : failure.code.startsWith('INFRA.') && failure.metric !== 'engine' ? 2 : 1);
  return ranked.map((failure, position) => ({ failure, position })).sort((a, b) => rank(a.failure) - rank(b.failure) || a.position - b.position).map(({ failure }) => failure);
}

/** Builds the explanation of a stored run. */
export async function explainRun(services: Services, runId: string) {
  const run = await readRun(services.store, runId);
  if (!run) throw notFound(`run ${runId}`);
  const failures = (await readEvidenceJson<RunFailure[]>(services.store, runId, SIDECARS.failures)) ?? run.failures ?? [];
  const metricDimension = (metric: string) => services.metrics.get(metric)?.dimension;
  const ranked = byVerdict(rankFailures(failures, metricDimension), run);
  // A run without a verdict says why, whether or not a failure explains it (a run that measured nothing has none).
  const reason = run.compliance?.status === 'error' ? run.compliance.reason ?? run.error?.message : undefined;
  const decided = run.compliance?.decided_by;
  const base = {
    run_id: runId, status: run.status, compliance: run.compliance, failure_count: failures.length,
    ...(decided ? { decided_by: { gate: decided.gate, reason: services.use('redactor').text(decided.reason) } } : {}),
    ...(reason ? { reason: services.use('redactor').text(reason) } : {}),
  };
  if (ranked.length === 0) {
    return { ...base, primary_trigger: null, causal_chain: [] as ChainLink[], recommendations: [] as Array<{ code: string; action: string }> };
  }
  const primary = ranked[0];
  const scenario = scenarioOf(await readEvidenceJson<Scenario | { scenario?: Scenario }>(services.store, runId, SIDECARS.scenario));
  // Every text this answer repeats from the run is redacted against the whole scenario's canaries.
  const redactor = services.use('redactor');
  const scope = { scenario };
  const clip = (text: string) => redactor.excerpt(text, { ...scope, max: MAX_SUMMARY });
  const events = await readTraceEvents(services.store, keys.trace(runId));
  const triggerEvent: TraceEvent | undefined =
    (primary.event_index !== null ? events.find((event) => event.seq === primary.event_index) : undefined) ??
    [...events].reverse().find((event) => event.task_id === primary.task_id && (event.variant ?? undefined) === (primary.variant ?? undefined));
  const chain = triggerEvent ? causalChain(events, triggerEvent, scenario?.topology ?? [], clip) : [];
  const codes = [...new Set(ranked.map((failure) => failure.code))];
  return {
    ...base,
    primary_trigger: {
      code: primary.code,
      metric: primary.metric,
      task_id: primary.task_id,
      variant: primary.variant,
      severity: primary.severity,
      dimension: dimensionOf(primary, metricDimension),
      message: redactor.text(primary.message, scope),
      evidence: redactor.value(primary.evidence, scope),
      event_index: triggerEvent?.seq ?? primary.event_index,
      event: triggerEvent ? { seq: triggerEvent.seq, type: triggerEvent.type, agent: triggerEvent.agent, task_id: triggerEvent.task_id, ts: triggerEvent.ts, summary: summarise(triggerEvent, clip) } : null,
    },
    causal_chain: chain,
    recommendations: codes.map((code) => ({ code, action: recommendationFor(code), occurrences: ranked.filter((failure) => failure.code === code).length })),
  };
}

async function narrativeFor(services: Services, explanation: Awaited<ReturnType<typeof explainRun>>) {
  const llm = services.find('llm');
  if (!llm) return { source: 'none', text: null, note: 'no language-model provider is configured (AEH_LLM_BASE_URL, AEH_LLM_MODEL)' };
  try {
    const text = await llm.complete({
      messages: [
        { role: 'system', content: 'You explain AI-agent evaluation failures to engineers in at most five sentences. Use only the facts given.' },
        { role: 'user', content: JSON.stringify({ primary_trigger: explanation.primary_trigger, causal_chain: explanation.causal_chain, recommendations: explanation.recommendations }) },
      ],
    });
    // The provider saw only redacted facts; its answer is redacted too, whatever it made of them.
    return { source: 'llm', model: llm.model, generated: true, text: services.use('redactor').text(text) };
  } catch (error) {
    return { source: 'llm', model: llm.model, text: null, note: `the provider failed: ${(error as Error).message}` };
  }
}

export default {
  name: 'explain',
  // It explains the runs the evaluation plugin records, redacted by the metrics plugin's redactor.
  dependencies: ['evaluation', 'metrics'],
  setup(host) {
    host.routes.register({
      method: 'GET',
      path: '/api/v1/explain/:run_id',
      permission: 'runs:read',
      summary: 'Forensic root-cause analysis of a run: primary failure trigger, causal chain, recommendations',
      tags: ['triage'],
      parameters: [{ name: 'narrative', in: 'query', schema: { type: 'string', enum: ['true', 'false'] }, description: 'add an LLM-written narrative (only with a configured provider; marked source "llm")' }],
      responses: {
        200: {
          description: 'The explanation; primary_trigger is null for a clean run',
          schema: { type: 'object', required: ['run_id', 'status', 'primary_trigger', 'causal_chain', 'recommendations'], properties: { run_id: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string', description: 'with compliance error: why the run has no verdict' }, decided_by: { type: 'object', description: 'the gate that decided the verdict, and why (docs/evaluation.md "How the verdict is decided")', properties: { gate: { type: 'string' }, reason: { type: 'string' } } }, primary_trigger: { type: ['object', 'null'] }, causal_chain: { type: 'array' }, recommendations: { type: 'array' } } },
        },
      },
      async handler(c) {
        const narrative = c.req.query('narrative');
        if (narrative !== undefined && narrative !== 'true' && narrative !== 'false') {
          throw new Problem('validation_failed', { detail: 'narrative must be true or false', errors: [{ path: '/narrative', message: 'must be true or false' }] });
        }
        const explanation = await explainRun(c.var.services, c.req.param('run_id') ?? '');
        if (narrative === 'true' && explanation.primary_trigger) {
          return c.json({ ...explanation, narrative: await narrativeFor(c.var.services, explanation) });
        }
        return c.json(explanation);
      },
    }, 'explain');
  },
} satisfies Plugin;
