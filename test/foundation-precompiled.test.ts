/**
 * Ahead-of-time validators (edge runtimes forbid code generation): the build's precompilation finds every schema
 * in use by itself, and each generated validator judges data exactly as run-time compilation does.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
// @ts-expect-error plain JavaScript build script without declarations
import { precompileValidators } from '../scripts/precompile-validators.mjs';
import { AJV_OPTIONS, schemaKey, registerPrecompiled, validatorOf, type JsonSchema } from '../core/validate.ts';
import { testApp } from './helpers.ts';
import { scenarioSchema } from '../core/domain/schemas/scenario.ts';
import { querySchema } from '../plugins/catalog/index.ts';
import { aesSchema } from '../plugins/aes/schema.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const out = join(repoRoot, 'test-artifacts', `validators-${process.pid}.js`);
const catalogOut = join(repoRoot, 'test-artifacts', `validators-catalog-${process.pid}.js`);
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

let generated: Map<string, ValidateFunction>;
let result: { count: number; sources: string[] };

beforeAll(async () => {
  mkdirSync(join(repoRoot, 'test-artifacts'), { recursive: true });
  result = await precompileValidators({ root: repoRoot, out, catalogOut, load: (path: string) => import(pathToFileURL(join(repoRoot, `${path}.ts`)).href), log: () => undefined });
  const module = await import(pathToFileURL(out).href);
  generated = new Map();
  module.install((key: string, validate: ValidateFunction) => generated.set(key, validate));
}, 120_000);

afterAll(() => {
  rmSync(out, { force: true });
  rmSync(catalogOut, { force: true });
});

/** A fresh run-time compiler with the service's options, for comparison. */
function runtimeValidator(schema: JsonSchema): ValidateFunction {
  const ajv = new Ajv2020({ ...AJV_OPTIONS });
  addFormats(ajv);
  return ajv.compile(structuredClone(schema));
}

const SAMPLES: unknown[] = [
  {}, null, [], 'text', 0, 1.5, true,
  { type: 'typo', raw_json: { id: 'x' }, seed: 3 },
  { scenario_id: 'refund', seed: -1 },
  { id: 'scn', title: 't', industry: 'finance', use_case: 'refunds', tags: [], agent: { adapter: 'scripted', replies: { '*': 'ok' } }, tasks: [{ id: 't1', input: 'hi', metrics: [{ id: 'task_success' }] }] },
  { limit: '5', offset: 'x', q: 'a'.repeat(600) },
  { markdown: '# PRD: x' },
  { cron: '* * * * *', scenario_id: 'a' },
];

describe('foundation: precompiled validators', () => {
  it('finds schemas in registries and module exports without a hand-kept list', () => {
    expect(result.count).toBeGreaterThan(20);
    expect(result.count).toBe(generated.size);
    for (const source of ['routes:body', 'metrics:params', 'routes:parameters']) expect(result.sources).toContain(source);
    expect(result.sources.some((source) => source.startsWith('plugins/catalog/index.ts#querySchema'))).toBe(true);
  });

  it('covers every route body, every metric params schema, every shim action and the scenario schema', async () => {
    const t = await testApp();
    const services = await t.app.ready;
    const needed: Array<[string, JsonSchema]> = [['scenario', scenarioSchema as JsonSchema], ['catalog query', querySchema as JsonSchema]];
    for (const route of t.app.host.routes.list()) if (route.body) needed.push([`${route.method} ${route.path}`, route.body]);
    for (const metric of services.metrics.list()) if (metric.params) needed.push([`metric ${metric.id}`, metric.params]);
    // Shims check their schemas when defined, at start: compiled there, they were a sixth of the start-up time.
    for (const shim of services.shims.list()) {
      for (const action of shim.actions) needed.push([`shim ${shim.name}.${action.name}`, action.parameters]);
      if (shim.initialStateSchema) needed.push([`shim ${shim.name} initial state`, shim.initialStateSchema]);
    }
    expect(needed.filter(([what]) => what.startsWith('shim ')).length).toBeGreaterThan(20);
    for (const [what, schema] of needed) expect(generated.has(schemaKey(schema)), what).toBe(true);
  });

  it('judges data exactly as run-time compilation does, errors included', async () => {
    const module = await import(pathToFileURL(out).href);
    const sources = module.sources as Record<string, string>;
    // The schemas themselves are not in the generated module; rebuild each from its registry or export via the key.
    const t = await testApp();
    const services = await t.app.ready;
    const candidates: JsonSchema[] = [scenarioSchema as JsonSchema, querySchema as JsonSchema];
    for (const route of t.app.host.routes.list()) {
      if (route.body) candidates.push(route.body);
      for (const parameter of route.parameters ?? []) candidates.push(parameter.schema);
    }
    for (const metric of services.metrics.list()) if (metric.params) candidates.push(metric.params);
    let compared = 0;
    for (const schema of candidates) {
      const precompiled = generated.get(schemaKey(schema));
      if (!precompiled) continue;
      const compiled = runtimeValidator(schema);
      for (const sample of SAMPLES) {
        const expected = compiled(sample);
        expect(precompiled(sample), `${sources[schemaKey(schema)]} on ${JSON.stringify(sample)}`).toBe(expected);
        const shape = (errors: typeof compiled.errors) => (errors ?? []).map((error) => `${error.instancePath} ${error.keyword}`).sort();
        expect(shape(precompiled.errors)).toEqual(shape(compiled.errors));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('writes the catalog loader\'s validators alone for the prefetch worker, judging data as the whole module does', async () => {
    const module = await import(pathToFileURL(catalogOut).href);
    const catalog = new Map<string, ValidateFunction>();
    module.install((key: string, validate: ValidateFunction) => catalog.set(key, validate));
    // The scenario schema and the AES format's: what loading a catalog file validates (core/domain/scenario-load.ts, plugins/aes/format.ts).
    expect([...catalog.keys()].sort()).toEqual([schemaKey(scenarioSchema as JsonSchema), schemaKey(aesSchema as JsonSchema)].sort());
    const aesSample = { aes_version: 1.4, metadata: { id: 'x', name: 'X', compliance_level: 'Standard' }, workflow: { nodes: [], edges: [] } };
    for (const [key, validate] of catalog) {
      for (const sample of [...SAMPLES, aesSample]) {
        const whole = generated.get(key)!;
        expect(validate(sample)).toBe(whole(sample));
        expect(validate.errors ?? null).toEqual(whole.errors ?? null);
      }
    }
  });

  it('generates code that imports ajv runtime helpers and never evaluates strings', () => {
    const code = readFileSync(out, 'utf8');
    expect(code).not.toMatch(/new Function|eval\(|require\(/);
    expect(code).toMatch(/^import \* as __namespace0 from "ajv\/dist\/runtime\/[a-z0-9]+\.js";$/m);
  });

  it('is used by validatorOf once registered, found by content rather than by object', () => {
    const schema = { type: 'object', required: ['a'], properties: { a: { type: 'integer', minimum: 1 } } };
    const sentinel = Object.assign((data: unknown) => typeof data === 'object', { errors: null }) as unknown as ValidateFunction;
    registerPrecompiled(schemaKey(schema), sentinel);
    const sameContentOtherObject = JSON.parse(JSON.stringify({ properties: { a: { minimum: 1, type: 'integer' } }, required: ['a'], type: 'object' }));
    expect(validatorOf(sameContentOtherObject)).toBe(sentinel);
    expect(validatorOf({ ...schema, required: ['b'] })).not.toBe(sentinel);
  });

  it('keys schemas by canonical content', () => {
    expect(schemaKey({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(schemaKey({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(schemaKey({ a: 1 })).not.toBe(schemaKey({ a: 2 }));
    expect(schemaKey({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
