/**
 * Datasets (issue 17 item 5): `POST /api/v1/datasets/import` turns JSONL or CSV test cases into a validated
 * scenario (answered, not stored: save it, evaluate it inline, or put it in a catalog folder), with every problem
 * named by row; `GET /api/v1/runs/:run_id/transcripts.jsonl` exports a run's answers in the form the `replay`
 * adapter reads. Columns and forms: rows.ts; docs/evaluation.md, "Datasets".
 */
import type { Plugin } from '../../core/plugin.ts';
import type { AppContext } from '../../core/routes.ts';
import type { Services } from '../../core/services.ts';
import { OffloadBudgetError, principalGroup } from '../../core/capabilities.ts';
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { readLimited } from '../../core/pipeline/json-body.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import { NO_AGENT_ADAPTER } from '../../core/domain/agent-target.ts';
import { keys } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import type { DatasetFormat } from './parse.ts';
import { decodeUtf8 } from './utf8.ts';
import type { ImportedRows, ImportJob } from './import-job.ts';
import { transcriptBytes, transcriptLines } from './transcripts.ts';
import { readEvidenceJson } from '../../core/domain/packed-evidence.ts';
import { describeErrors } from '../../core/validate.ts';
import { JsonDepthError, parseWithinDepth } from '../../core/guards/json-depth.ts';
import { depthProblem } from '../../core/pipeline/json-body.ts';

const PLUGIN = 'datasets';
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Datasets longer than this (characters) are read in the offload pool; shorter ones cost less than the trip. */
const LARGE_IMPORT = 64 * 1024;
/** Default of `AEH_DATASET_BUDGET_MS`: the largest import (10,000 rows, 64 columns) takes about 2 s on a busy small machine. */
const DEFAULT_IMPORT_BUDGET_MS = 15_000;
const importJobModule = () => new URL(`./import-job.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;
const FORMAT_OF: Record<string, DatasetFormat> = { 'text/csv': 'csv', 'application/x-ndjson': 'jsonl', 'application/jsonl': 'jsonl', 'application/x-jsonlines': 'jsonl' };

/**
 * Scenario fields an import sets around the rows: `id`, `title`, `industry`, `use_case`, `policy_ref` as query
 * parameters, or any scenario field but `tasks` in the `scenario` template of a JSON body (`agent`,
 * `enabled_shims`, `initial_state`, `shim_config`, `trials`, `conversation`, `concurrency`, `verdict`,
 * `instructions`, `tags`, …). Whatever the template holds is kept, or refused naming it: never dropped.
 */
type ScenarioFields = Partial<Omit<Scenario, 'tasks'>> & { tasks?: unknown };

async function readImport(c: AppContext): Promise<{ format: DatasetFormat; text: string; fields: ScenarioFields }> {
  const services = c.var.services;
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const limit = services.config.maxBodyBytes;
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new Problem('payload_too_large', { detail: `the dataset is ${declared} bytes; the limit is ${limit} (AEH_MAX_BODY_BYTES)` });
  const bytes = c.req.raw.body ? await readLimited(c.req.raw.body, limit) : new Uint8Array();
  const query = (name: string) => c.req.query(name) || undefined;
  if (FORMAT_OF[type]) {
    return { format: FORMAT_OF[type], text: decodeUtf8(bytes), fields: { id: query('id'), title: query('title'), industry: query('industry'), use_case: query('use_case'), policy_ref: query('policy_ref') } };
  }
  if (type !== 'application/json') throw new Problem('unsupported_media_type', { detail: `send text/csv, application/x-ndjson, or application/json with {format, data}; not "${type || 'nothing'}"` });
  let body: { format?: unknown; data?: unknown; scenario?: unknown };
  try {
    body = parseWithinDepth(decodeUtf8(bytes)) as typeof body;
  } catch (error) {
    if (error instanceof Problem) throw error;
    if (error instanceof JsonDepthError) throw depthProblem(error, 'the body');
    throw new Problem('invalid_json', { detail: 'the body is not JSON' });
  }
  const errors = [];
  if (body?.format !== 'csv' && body?.format !== 'jsonl') errors.push({ path: '/format', message: 'must be "csv" or "jsonl"' });
  if (typeof body?.data !== 'string') errors.push({ path: '/data', message: 'must be the dataset as text' });
  if (body?.scenario !== undefined && (typeof body.scenario !== 'object' || body.scenario === null || Array.isArray(body.scenario))) errors.push({ path: '/scenario', message: 'must be an object' });
  if (errors.length) throw new Problem('validation_failed', { detail: describeErrors(errors, errors.length), errors });
  return { format: body.format as DatasetFormat, text: body.data as string, fields: (body.scenario ?? {}) as ScenarioFields };
}

/**
 * Reads the dataset's rows: a large one in the offload pool under `AEH_DATASET_BUDGET_MS`, as the caller's work
 * (principals take turns for the workers); past the budget, 422 `budget_exceeded`. Without a pool, here.
 */
async function readRows(services: Services, budgetMs: number, job: ImportJob, c: AppContext): Promise<ImportedRows> {
  const offload = services.capabilities.offload;
  // Loaded with the first import, not at start (csv-parse: issue 36).
  const importHere = () => import('./import-job.ts').then(({ importRows }) => importRows(job));
  if (!offload || job.text.length <= LARGE_IMPORT) return importHere();
  try {
    return await offload.run({ module: importJobModule(), name: 'importRows', input: job, budgetMs, signal: c.req.raw.signal, group: principalGroup(c.var.principal?.id) }) as ImportedRows;
  } catch (error) {
    if ((error as Error)?.name === 'OffloadUnavailable') return importHere();
    if (!(error instanceof OffloadBudgetError)) throw error;
    throw new Problem('budget_exceeded', { detail: `the dataset was not read within ${budgetMs} ms (AEH_DATASET_BUDGET_MS): split it into smaller imports`, errors: [{ path: '/rows', message: `not read within ${budgetMs} ms` }], extra: { budget_ms: budgetMs } });
  }
}

/**
 * The imported scenario, validated; a problem is named where the import's caller wrote it: a task's under its
 * row (`/rows/<n>/…`), anything else under the template (`/scenario/…`).
 */
function validatedImport(document: Record<string, unknown>, rowOf: number[], services: Services): Scenario {
  try {
    return normalizeScenario(document, { formats: services.scenarioFormats.list() });
  } catch (error) {
    if (!(error instanceof Problem) || !error.errors) throw error;
    const errors = error.errors.map((inner) => {
      const task = /^\/tasks\/(\d+)(\/.*)?$/.exec(inner.path);
      return { ...inner, path: task ? `/rows/${rowOf[Number(task[1])]}${task[2] ?? ''}` : `/scenario${inner.path === '/' ? '' : inner.path}` };
    });
    throw new Problem('validation_failed', { detail: `the imported scenario is invalid: ${describeErrors(errors)}`, errors });
  }
}

export default {
  name: PLUGIN,
  version: '1.0.0',
  // Metric ids and params are checked against the metrics loaded; transcripts are read from evaluation's runs.
  dependencies: ['metrics', 'evaluation'],
  settings: textSettings({ AEH_DATASET_BUDGET_MS: 'The longest reading a large dataset import may take in the worker pool (milliseconds)' }),
  setup(host) {
    const budgetMs = Number(asText(host.settings).AEH_DATASET_BUDGET_MS) || DEFAULT_IMPORT_BUDGET_MS;
    host.routes.register({
      method: 'POST', path: '/api/v1/datasets/import', permission: 'scenarios:mutate', tags: ['datasets'], audit: 'dataset.import',
      summary: 'Turn JSONL or CSV test cases (input, expected, metrics, tags) into a validated scenario; problems are named by row',
      parameters: ['id', 'title', 'industry', 'use_case', 'policy_ref'].map((name) => ({ name, in: 'query' as const, schema: { type: 'string', maxLength: 200 }, description: `the scenario's ${name} (text/csv and application/x-ndjson bodies)` })),
      responses: { 200: { description: '{scenario, rows, warnings}' }, 400: { description: 'validation_failed: errors[].path is /rows/<n>/<column> (rows count from 1 after the header)' }, 422: { description: 'budget_exceeded: a large dataset was not read within AEH_DATASET_BUDGET_MS', contentType: 'application/problem+json' } },
      async handler(c) {
        const services = c.var.services;
        const { format, text, fields } = await readImport(c);
        if (fields.id !== undefined && !ID.test(String(fields.id))) throw new Problem('validation_failed', { detail: 'id must be letters, digits, ".", "_" or "-"', errors: [{ path: '/scenario/id', message: 'is not a scenario id' }] });
        const metricParams = Object.fromEntries(services.metrics.list().map((metric) => [metric.id, metric.params ?? null]));
        const { errors, mapped } = await readRows(services, budgetMs, { text, format, metricParams }, c);
        if (errors.length) {
          errors.sort((a, b) => Number(a.path.split('/')[2] ?? 0) - Number(b.path.split('/')[2] ?? 0));
          throw new Problem('validation_failed', { detail: `${errors.length} problem(s) in the dataset: ${describeErrors(errors)}`, errors: errors.slice(0, 200), extra: { warnings: mapped.warnings.slice(0, 200) } });
        }
        if (fields.tasks !== undefined) throw new Problem('validation_failed', { detail: 'the scenario template may not hold tasks: they come from the rows', errors: [{ path: '/scenario/tasks', message: 'tasks come from the rows' }] });
        const document = {
          ...fields,
          id: fields.id ?? 'imported-dataset',
          title: String(fields.title ?? 'Imported dataset').slice(0, 200),
          industry: String(fields.industry ?? 'General'),
          use_case: String(fields.use_case ?? 'Dataset'),
          tags: [...new Set([...(Array.isArray(fields.tags) ? fields.tags : []), ...mapped.tags])],
          policy_ref: String(fields.policy_ref ?? 'NIST AI 100-1'),
          agent: fields.agent ?? { adapter: NO_AGENT_ADAPTER },
          topology: fields.topology ?? [],
          tasks: mapped.tasks,
          // Rows are independent cases: they run side by side unless the template says otherwise.
          conversation: fields.conversation ?? 'per_task',
          source: `import-${format}`,
        };
        const scenario = validatedImport(document, mapped.rowOf, services);
        services.telemetry.increment('datasets.imported');
        return c.json({ scenario, rows: mapped.tasks.length, warnings: mapped.warnings.slice(0, 200) });
      },
    }, PLUGIN);
    host.routes.register({
      method: 'GET', path: '/api/v1/runs/:run_id/transcripts.jsonl', permission: 'runs:export', tags: ['datasets', 'evaluation'],
      summary: "A run's answers as JSONL for the replay adapter (tool calls included); ?redact=true masks secrets and personal data",
      parameters: [{ name: 'run_id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'redact', in: 'query', schema: { type: 'boolean' } }],
      responses: { 200: { description: 'One JSON object per line', contentType: 'application/x-ndjson', schema: { type: 'string' } } },
      async handler(c) {
        const services = c.var.services;
        const runId = c.req.param('run_id') ?? '';
        const run = await readRun(services.store, runId);
        if (!run) throw notFound(`run ${runId.slice(0, 64)}`);
        const bytes = await services.store.getBytes(keys.sidecar(runId, run.trace_file || 'trace.jsonl'));
        const redactor = c.req.query('redact') === 'true' ? services.find('redactor') : undefined;
        const scenario = redactor ? ((await readEvidenceJson<{ scenario?: Scenario }>(services.store, runId, 'scenario.json'))?.scenario) : undefined;
        const lines = transcriptLines(bytes ? new TextDecoder().decode(bytes) : '', redactor ? { redactor, scope: { scenario } } : undefined);
        return new Response(transcriptBytes(lines) as Uint8Array<ArrayBuffer>, {
          status: 200,
          headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store', 'content-disposition': `attachment; filename="${runId}.transcripts.jsonl"` },
        });
      },
    }, PLUGIN);
  },
} satisfies Plugin;
