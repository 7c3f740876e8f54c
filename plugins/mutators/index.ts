/**
 * The mutators plugin: registers the bundled mutators and the routes `POST /api/v1/mutate` and
 * `GET /api/v1/mutators` (api-contract.md, "Endpoints"). LLM-backed mutators are registered always but listed
 * and usable only when a provider is configured; core/domain/mutation.ts refuses them otherwise.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { Mutator } from '../../core/mutator.ts';
import { Problem } from '../../core/problems.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import { loadScenarioFile } from '../../core/scenario-file.ts';
import { availableMutators, DEFAULT_SEED, MAX_CHAIN, MAX_VARIANTS, mutateScenario, normalizeTypes } from '../../core/domain/mutation.ts';
import typo from './typo.ts';
import jumble from './jumble.ts';
import synonym from './synonym.ts';
import homoglyph from './homoglyph.ts';
import leetspeak from './leetspeak.ts';
import caseMutator from './case.ts';
import whitespace from './whitespace.ts';
import punctuation from './punctuation.ts';
import zeroWidth from './zero-width.ts';
import base64 from './base64.ts';
import rot13 from './rot13.ts';
import promptInjection from './prompt-injection.ts';
import multilingual from './multilingual.ts';
import paraphrase from './paraphrase.ts';

/** Every bundled mutator, in the order `GET /api/v1/mutators` lists them. */
export const BUNDLED_MUTATORS: readonly Mutator[] = [
  typo, jumble, synonym, homoglyph, leetspeak, caseMutator, whitespace, punctuation, zeroWidth, base64, rot13, promptInjection, multilingual, paraphrase,
];

const TYPE_NAME = { type: 'string', minLength: 1, maxLength: 64 };

/** Body of `POST /api/v1/mutate`. */
export const MUTATE_BODY_SCHEMA = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: {
      description: 'A mutator type, or a chain applied in order.',
      oneOf: [TYPE_NAME, { type: 'array', items: TYPE_NAME, minItems: 1, maxItems: MAX_CHAIN }],
    },
    path: { type: 'string', minLength: 1, maxLength: 4096, description: 'A scenario JSON file under PROJECT_ROOT.' },
    raw_json: { type: 'object', description: 'A scenario (native or AES v1.4) sent inline.' },
    seed: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: DEFAULT_SEED },
    count: { type: 'integer', minimum: 1, maximum: MAX_VARIANTS, default: 1 },
    options: { type: 'object', description: 'Mutator options, for example {"rate": 0.1}.' },
  },
};

/** The scenario schema lives in core/domain/schemas/scenario.ts; referenced by description to avoid a duplicate component. */
const SCENARIO_REF = { type: 'object', description: 'A Scenario (core/domain/schemas/scenario.ts), validated before it is returned.' };

const CHANGE_SCHEMA = {
  type: 'object',
  required: ['task_id', 'field', 'before', 'after'],
  properties: { task_id: { type: 'string' }, field: { const: 'input' }, before: { type: 'string' }, after: { type: 'string' } },
};

const MUTATE_RESPONSE_SCHEMA = {
  type: 'object',
  required: ['type', 'seed'],
  properties: {
    type: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    seed: { type: 'integer' },
    scenario: SCENARIO_REF,
    changes: { type: 'array', items: CHANGE_SCHEMA },
    variants: {
      type: 'array',
      items: {
        type: 'object',
        required: ['variant_id', 'seed', 'scenario', 'changes'],
        properties: { variant_id: { type: 'string' }, seed: { type: 'integer' }, scenario: SCENARIO_REF, changes: { type: 'array', items: CHANGE_SCHEMA } },
      },
    },
  },
};

interface MutateBody {
  type: string | string[];
  path?: string;
  raw_json?: Record<string, unknown>;
  seed?: number;
  count?: number;
  options?: Record<string, unknown>;
}

function registerRoutes(host: PluginHost): void {
  host.routes.register({
    method: 'POST',
    path: '/api/v1/mutate',
    permission: 'scenarios:mutate',
    summary: 'Mutate a scenario into perturbed variants (deterministic for a seed)',
    tags: ['mutation'],
    audit: 'mutate',
    body: MUTATE_BODY_SCHEMA,
    responses: {
      200: { description: '`{type, seed, scenario, changes}`, or `{type, seed, variants}` when count > 1', schema: MUTATE_RESPONSE_SCHEMA },
      400: { description: 'Unknown mutator type (with `known_types`), bad options, or an invalid scenario' },
    },
    async handler(c) {
      const body = c.var.body as MutateBody;
      const services = c.var.services;
      if ((body.path === undefined) === (body.raw_json === undefined)) {
        throw new Problem('validation_failed', {
          detail: 'send exactly one of path and raw_json',
          errors: [{ path: '/', message: 'must have exactly one of path, raw_json' }],
        });
      }
      const scenario = body.raw_json !== undefined ? normalizeScenario(body.raw_json, { formats: services.scenarioFormats.list() }) : await loadScenarioFile(services, body.path!);
      const seed = body.seed ?? DEFAULT_SEED;
      const count = body.count ?? 1;
      const variants = await mutateScenario(scenario, normalizeTypes(body.type), {
        seed,
        count,
        mutators: services.mutators,
        llm: services.find('llm'),
        options: body.options,
        signal: c.req.raw.signal,
      });
      if (count === 1) return c.json({ type: body.type, seed, scenario: variants[0]!.scenario, changes: variants[0]!.changes });
      return c.json({
        type: body.type,
        seed,
        variants: variants.map(({ variant_id, seed: variantSeed, scenario: mutated, changes }) => ({ variant_id, seed: variantSeed, scenario: mutated, changes })),
      });
    },
  }, 'mutators');

  host.routes.register({
    method: 'GET',
    path: '/api/v1/mutators',
    permission: 'scenarios:read',
    summary: 'List the mutator types this service offers',
    tags: ['mutation'],
    responses: {
      200: {
        description: 'The mutators; LLM-backed ones only when a provider is configured',
        schema: {
          type: 'object',
          required: ['items'],
          properties: {
            items: {
              type: 'array',
              items: { type: 'object', required: ['type', 'description', 'deterministic'], properties: { type: { type: 'string' }, description: { type: 'string' }, deterministic: { type: 'boolean' } } },
            },
          },
        },
      },
    },
    handler(c) {
      const services = c.var.services;
      const items = availableMutators(services.mutators, services.find('llm')).map(({ type, description, deterministic }) => ({ type, description, deterministic }));
      return c.json({ items });
    },
  }, 'mutators');
}

export default {
  name: 'mutators',
  setup(host) {
    for (const mutator of BUNDLED_MUTATORS) host.mutators.register(mutator, 'mutators');
    registerRoutes(host);
  },
} satisfies Plugin;
