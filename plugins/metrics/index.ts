/**
 * The bundled metrics plugin: registers the seventeen built-in metrics, serves `GET /api/v1/metrics`
 * (`metrics:read`) and `GET /api/v1/taxonomy` (`taxonomy:read`) as the API contract states, and provides the
 * `redactor` service (redactor.ts) built on its detectors.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { Metric } from '../../core/metric.ts';
import { Problem } from '../../core/problems.ts';
import { DIMENSIONS } from '../../core/domain/scenario.ts';
import { TAXONOMY, TAXONOMY_VERSION, codeIndex, taxonomyReferences, type CodeIndex } from './taxonomy.ts';
import type { Registry } from '../../core/registry.ts';
import type { FailureCode } from '../../core/failure-codes.ts';
import taskSuccess from './task-success.ts';
import latencyBudget from './latency-budget.ts';
import refusal, { createRefusalMetric } from './refusal.ts';
import harmfulContent, { createHarmfulContentMetric } from './harmful-content.ts';
import { MODERATION_SETTINGS, moderationFromSettings, type ModerationTier } from './shared/moderation.ts';
import secretLeak from './secret-leak.ts';
import promptInjection from './prompt-injection.ts';
import piiLeak from './pii-leak.ts';
import counterfactualParity from './counterfactual-parity.ts';
import aiDisclosure from './ai-disclosure.ts';
import robustness from './robustness.ts';
import llmJudge from './llm-judge.ts';
import toolUse from './tool-use.ts';
import stateMatch from './state-match.ts';
import conversationEnd from './conversation-end.ts';
import nlAssertions from './nl-assertions.ts';
import toolSafety from './tool-safety.ts';
import claimCheck, { createClaimCheckMetric } from './claim-check.ts';
import injectionSuccess from './injection-success.ts';
import { createRedactor } from './redactor.ts';

/** The built-in metrics, in the order `GET /api/v1/metrics` lists them. */
export const BUILTIN_METRICS: readonly Metric[] = [
  taskSuccess, latencyBudget, refusal, harmfulContent, secretLeak, promptInjection, piiLeak, counterfactualParity, aiDisclosure, robustness, llmJudge, toolUse, toolSafety, stateMatch,
  conversationEnd, nlAssertions, claimCheck, injectionSuccess,
];

const PLUGIN_NAME = 'metrics';

const DIMENSION_PARAMETER = { name: 'dimension', in: 'query' as const, schema: { type: 'string', enum: [...DIMENSIONS] }, description: 'Only entries of this dimension.' };

const METRIC_LIST_SCHEMA = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'dimension', 'description', 'version', 'plugin', 'params_schema'],
        properties: {
          id: { type: 'string' },
          dimension: { type: 'string', enum: [...DIMENSIONS] },
          description: { type: 'string' },
          version: { type: 'string' },
          plugin: { type: 'string' },
          params_schema: { type: 'object' },
        },
      },
    },
  },
};

const TAXONOMY_SCHEMA = {
  type: 'object',
  required: ['version', 'items'],
  properties: {
    version: { type: 'string' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'name', 'dimension', 'description', 'references'],
        properties: {
          code: { type: 'string' },
          name: { type: 'string' },
          dimension: { type: 'string', enum: [...DIMENSIONS] },
          description: { type: 'string' },
          parent: { type: 'string' },
          references: { type: 'array', items: { type: 'string' } },
          nist: { type: 'array', items: { type: 'string' } },
          owasp: { type: 'array', items: { type: 'string' } },
          aliases: { type: 'array', items: { type: 'string' } },
          plugin: { type: 'string', description: 'The plugin that declared the code' },
        },
      },
    },
  },
};

/** The `dimension` query parameter, checked against the seven dimensions. */
function dimensionFilter(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(DIMENSIONS as readonly string[]).includes(value)) {
    throw new Problem('validation_failed', { detail: `dimension must be one of ${DIMENSIONS.join(', ')}`, errors: [{ path: '/query/dimension', message: `must be one of ${DIMENSIONS.join(', ')}` }] });
  }
  return value;
}

/** The taxonomy as the route renders it, built once per app (registries are frozen after start). */
const rendered = new WeakMap<Registry<FailureCode>, { index: CodeIndex; items: Array<Record<string, unknown> & { code: string; dimension: string }> }>();

function taxonomyOf(codes: Registry<FailureCode>) {
  let view = rendered.get(codes);
  if (!view) {
    const list = codes.list();
    view = {
      index: codeIndex(list),
      items: list.map((entry) => ({
        code: entry.code,
        name: entry.name,
        dimension: entry.dimension,
        description: entry.description,
        ...(entry.parent ? { parent: entry.parent } : {}),
        references: taxonomyReferences(entry),
        nist: entry.nist ?? [],
        owasp: entry.owasp ?? [],
        aliases: entry.aliases ?? [],
        plugin: codes.ownerOf(entry.code) ?? 'core',
      })),
    };
    rendered.set(codes, view);
  }
  return view;
}

function registerRoutes(host: PluginHost): void {
  host.routes.register({
    method: 'GET',
    path: '/api/v1/metrics',
    permission: 'metrics:read',
    summary: 'Registered evaluation metrics with their dimension and params schema',
    tags: ['metrics'],
    parameters: [DIMENSION_PARAMETER],
    responses: { 200: { description: 'The metrics', schema: METRIC_LIST_SCHEMA } },
    handler(c) {
      const dimension = dimensionFilter(c.req.query('dimension'));
      const registry = c.var.services.metrics;
      const items = registry
        .list()
        .filter((metric) => !dimension || metric.dimension === dimension)
        .map((metric) => ({
          id: metric.id,
          dimension: metric.dimension,
          description: metric.description,
          version: metric.version,
          plugin: registry.ownerOf(metric.id) ?? 'core',
          params_schema: metric.params ?? { type: 'object' },
        }));
      return c.json({ items });
    },
  }, PLUGIN_NAME);

  host.routes.register({
    method: 'GET',
    path: '/api/v1/taxonomy',
    permission: 'taxonomy:read',
    summary: 'The failure taxonomy: codes in a hierarchy, mapped to dimensions, NIST AI 100-1 and OWASP LLM Top 10 (2025)',
    tags: ['metrics'],
    parameters: [
      DIMENSION_PARAMETER,
      { name: 'within', in: 'query', schema: { type: 'string', maxLength: 100 }, description: 'Only this code and the codes beneath it (reference category names such as infra_timeout are accepted).' },
    ],
    responses: { 200: { description: 'The taxonomy', schema: TAXONOMY_SCHEMA } },
    handler(c) {
      const dimension = dimensionFilter(c.req.query('dimension'));
      const within = c.req.query('within');
      const { index, items: all } = taxonomyOf(c.var.services.failureCodes);
      if (within !== undefined && within !== '' && !index.entry(within)) {
        throw new Problem('validation_failed', { detail: `within: unknown taxonomy code "${within.slice(0, 100)}"`, errors: [{ path: '/query/within', message: 'is not a taxonomy code' }] });
      }
      const items = all.filter((item) => (!dimension || item.dimension === dimension) && (!within || index.isWithin(item.code, within)));
      return c.json({ version: TAXONOMY_VERSION, items });
    },
  }, PLUGIN_NAME);
}

/**
 * The model tier `AEH_MODERATION_*` configure (docs/metrics.md, "The model tier"), or undefined. It calls out
 * through the services' trusted fetch (an operator-configured URL) once the service has started.
 */
function moderationOf(host: PluginHost): ModerationTier | undefined {
  let fetcher: typeof fetch = host.capabilities.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const moderation = moderationFromSettings(host.settings, host.config.llm, () => fetcher);
  if (moderation) {
    host.onStart(function useTrustedFetch(services) {
      fetcher = services.trustedFetch;
    });
  }
  return moderation;
}

export default {
  name: PLUGIN_NAME,
  version: '1.0.0',
  // The bundled taxonomy: the codes the built-in metrics and the engine report, and the roots plugins extend.
  failureCodes: TAXONOMY,
  settings: MODERATION_SETTINGS,
  setup(host) {
    const moderation = moderationOf(host);
    // With a model tier, refusal and harmful_content call out: they run on the request thread, not in a worker.
    const tiered: Record<string, Metric> = moderation ? { refusal: createRefusalMetric({ moderation }), harmful_content: createHarmfulContentMetric({ moderation }) } : {};
    // With a language model configured, claim_check may ask it about the answers its words do not settle.
    if (host.config.llm.baseUrl && host.config.llm.model) tiered.claim_check = createClaimCheckMetric({ judged: true });
    for (const metric of BUILTIN_METRICS) host.metrics.register(tiered[metric.id] ?? metric, PLUGIN_NAME);
    // The detectors are this plugin's, so the one redaction of every excerpt leaving the service is too.
    host.provide('redactor', () => createRedactor());
    registerRoutes(host);
  },
} satisfies Plugin;
