/**
 * The spec-to-eval plugin: `POST /api/v1/spec-to-eval` (api-contract.md "Endpoints") turns a Markdown PRD,
 * sent inline (`markdown`) or named by a jailed path (`input_path`), into validated, runnable scenario stubs;
 * `persist: true` also writes them under `PROJECT_ROOT/scenarios/`. Pitfalls are 422 `spec_parse_failed`.
 */
import { asText, textSettings } from '../../core/plugin-settings.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import { Problem } from '../../core/problems.ts';
import { readJailedFile } from '../../core/guards/jail.ts';
import { OffloadBudgetError, principalGroup } from '../../core/capabilities.ts';
import type { Services } from '../../core/services.ts';
import { DEFAULT_LLM_TIMEOUT_MS } from './llm-fallback.ts';
import { PITFALL, specParseFailed } from './pitfalls.ts';
import { describeComplexity, measureComplexity } from './complexity.ts';
import type { ConvertJob, ConvertJobResult } from './offloaded.ts';

// The converter pulls in the Markdown parser (micromark, mdast, GFM: a tenth of the service's start-up), which
// only this route needs: it loads on the first conversion, not at start.
let converter: Promise<typeof import('./convert.ts')> | undefined;
const loadConverter = () => (converter ??= import('./convert.ts'));

/**
 * The worker's module, named by URL rather than imported (importing it would load the converter at start; see
 * loadConverter), and only where there is a pool (a bundled workerd worker has no module URL to resolve from).
 */
const convertWorkerModule = () => new URL(`./offloaded.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

/** Default of `AEH_SPEC_TO_EVAL_BUDGET_MS`: 1 MiB of mixed bullets and H3 cases takes 9–12 s on a small machine. */
export const DEFAULT_CONVERT_BUDGET_MS = 20_000;

const BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Exactly one of markdown or input_path.',
  properties: {
    markdown: { type: 'string', description: 'The PRD as Markdown.' },
    input_path: { type: 'string', minLength: 1, maxLength: 4096, description: 'Path of a Markdown PRD inside PROJECT_ROOT (or the temp directories unless AEH_STRICT_JAIL=1).' },
    persist: { type: 'boolean', default: false, description: 'Also write the stubs to PROJECT_ROOT/scenarios/<id>.json (never overwriting: <id>-2.json…).' },
    enrich: { type: 'boolean', default: true, description: 'With a language-model provider configured: let it propose the expectations and metrics the PRD leaves out, marked in each task\'s provenance ("llm"). false keeps the stubs to what the document says.' },
  },
};

const FINDING = {
  type: 'object',
  required: ['code', 'line', 'message'],
  properties: { code: { type: 'string' }, line: { type: 'integer', minimum: 1 }, message: { type: 'string' } },
};

const RESULT_SCHEMA = {
  type: 'object',
  required: ['prd', 'scenarios', 'source', 'warnings'],
  properties: {
    prd: {
      type: 'object',
      required: ['title', 'industry', 'use_case', 'topology'],
      properties: {
        title: { type: 'string' },
        industry: { type: 'string' },
        use_case: { type: 'string' },
        topology: { type: 'array', items: { type: 'object', properties: { agent: { type: 'string' }, writes: { type: 'array', items: { type: 'string' } }, reads: { type: 'array', items: { type: 'string' } } } } },
      },
    },
    scenarios: { type: 'array', items: { $ref: '#/components/schemas/Scenario' } },
    source: { enum: ['structured', 'llm'] },
    warnings: { type: 'array', items: FINDING },
    persisted: { type: 'array', items: { type: 'object', properties: { scenario_id: { type: 'string' }, path: { type: 'string' } } } },
  },
};

interface SpecToEvalBody {
  markdown?: string;
  input_path?: string;
  persist?: boolean;
  enrich?: boolean;
}

/** The 1-based line of the first byte sequence that is not UTF-8. */
function firstInvalidLine(bytes: Uint8Array): number {
  const lenient = new TextDecoder('utf-8').decode(bytes);
  const at = lenient.indexOf('\ufffd');
  let line = 1;
  for (let index = 0; index < at; index++) if (lenient.charCodeAt(index) === 10) line++;
  return line;
}

async function readSource(services: Services, body: SpecToEvalBody): Promise<string> {
  const given = (body.markdown !== undefined ? 1 : 0) + (body.input_path !== undefined ? 1 : 0);
  if (given !== 1) {
    throw new Problem('validation_failed', {
      detail: 'send exactly one of "markdown" (the PRD) or "input_path" (a file inside PROJECT_ROOT)',
      errors: [{ path: given ? '/input_path' : '/markdown', message: given ? 'must not be sent together with markdown' : 'one of markdown or input_path is required' }],
    });
  }
  if (body.markdown !== undefined) return body.markdown;
  // A file is held to the same limit as a body: the path must not be a way around AEH_MAX_BODY_BYTES.
  const limit = services.config.maxBodyBytes;
  const bytes = await readJailedFile(services, body.input_path!, limit).catch((error: unknown) => {
    if (error instanceof Problem && error.code === 'payload_too_large') throw new Problem('payload_too_large', { detail: `the file is larger than ${limit} bytes (AEH_MAX_BODY_BYTES)` });
    throw error;
  });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw specParseFailed([{ code: PITFALL.invalidEncoding, line: firstInvalidLine(bytes), message: 'the file is not UTF-8 text' }]);
  }
}

function llmTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.AEH_SPEC_TO_EVAL_LLM_TIMEOUT_MS);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_LLM_TIMEOUT_MS;
}

function convertBudgetMs(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.AEH_SPEC_TO_EVAL_BUDGET_MS);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_CONVERT_BUDGET_MS;
}

/**
 * Converts in the offload pool under `AEH_SPEC_TO_EVAL_BUDGET_MS`, so a document that is costly to parse holds
 * a worker, not the service; past the budget, 422 `spec_too_complex` names the structures that made it so.
 * Without an offload (workerd, `AEH_METRIC_WORKERS=0`), and for the language-model fallback, it runs here.
 */
async function convert(services: Services, settings: Readonly<Record<string, string | undefined>>, source: string, signal: AbortSignal, enrich = true, principalId?: string) {
  const { convertSpec } = await loadConverter();
  const options = { llm: services.find('llm'), registeredMetrics: services.metrics.names(), llmTimeoutMs: llmTimeoutMs(settings), enrich };
  const offload = services.capabilities.offload;
  if (!offload) return convertSpec(source, options);
  const budgetMs = convertBudgetMs(settings);
  const job: ConvertJob = { source, registeredMetrics: [...options.registeredMetrics], llmConfigured: options.llm !== undefined, enrich };
  let converted: ConvertJobResult;
  try {
    converted = await offload.run({ module: convertWorkerModule(), name: 'convertInWorker', input: job, budgetMs, signal, group: principalGroup(principalId) }) as ConvertJobResult;
  } catch (error) {
    if ((error as Error)?.name === 'OffloadUnavailable') return convertSpec(source, options);
    if (!(error instanceof OffloadBudgetError)) throw error;
    const complexity = measureComplexity(source);
    throw new Problem('spec_too_complex', {
      detail: `the document did not convert within ${budgetMs} ms (AEH_SPEC_TO_EVAL_BUDGET_MS): ${describeComplexity(complexity)}; split the largest structure or send a smaller document`,
      extra: { complexity },
    });
  }
  return 'result' in converted ? converted.result : convertSpec(source, options);
}

function registerRoute(host: PluginHost): void {
  const settings = asText(host.settings);
  host.routes.register({
    method: 'POST',
    path: '/api/v1/spec-to-eval',
    permission: 'specs:convert',
    summary: 'Convert a Markdown PRD into validated scenario stubs',
    tags: ['scenarios'],
    audit: 'spec-to-eval',
    body: BODY_SCHEMA,
    responses: {
      200: { description: 'The PRD, its scenario stubs and the warnings', schema: RESULT_SCHEMA },
      413: { description: 'the body, or the input_path file, is larger than AEH_MAX_BODY_BYTES', contentType: 'application/problem+json' },
      422: { description: 'spec_parse_failed: pitfalls [{code, line, message}]; spec_too_complex: the document did not convert within its budget, complexity names why', contentType: 'application/problem+json' },
      503: { description: 'the language-model provider of the fallback failed; retry later', contentType: 'application/problem+json' },
    },
    async handler(c) {
      const services = c.var.services;
      const body = c.var.body as SpecToEvalBody;
      const source = await readSource(services, body);
      const result = await convert(services, settings, source, c.req.raw.signal, body.enrich !== false, c.var.principal?.id);
      if (!body.persist) return c.json(result);
      // Persisting (and build.ts's limits) loads with the first conversion that persists, not at start (issue 36).
      const { persistScenarios } = await import('./persist.ts');
      const { scenarios, persisted } = await persistScenarios(services, result.scenarios);
      return c.json({ ...result, scenarios, persisted });
    },
  }, 'spec-to-eval');
}

export default {
  name: 'spec-to-eval',
  // Specs become tasks scored by the bundled metrics.
  dependencies: ['metrics'],
  settings: textSettings({
    AEH_SPEC_TO_EVAL_BUDGET_MS: 'The longest one conversion may take in the worker pool (milliseconds)',
    AEH_SPEC_TO_EVAL_LLM_TIMEOUT_MS: 'The longest the language-model fallback may take (milliseconds)',
  }),
  setup: registerRoute,
} satisfies Plugin;
