/**
 * Reports (issue 17 item 4): `GET /api/v1/runs/:run_id/report`, a self-contained HTML report of a run, and
 * `GET /api/v1/suites/:suite_id/report`, of a suite (through the `suites` slot, when a plugin provides it);
 * `GET /api/v1/runs/:run_id/transcript`, the same per-task transcript as JSON (the console's run page reads it);
 * `GET /api/v1/runs/:run_id/links`, the run's addresses, absolute when `AEH_PUBLIC_URL` is set, so the CLI's
 * JUnit and Markdown reports can link to them. Everything repeated from a run passes the redactor first.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext } from '../../core/routes.ts';
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { isValidRunId, keys, SIDECARS } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import { readTraceEvents } from '../../core/domain/trace-lines.ts';
import { REPORT_CSP } from './csp.ts';
import { buildTranscript } from './transcript.ts';
import { publicBaseUrl, runLinks } from './links.ts';
import { readEvidenceJson } from '../../core/domain/packed-evidence.ts';

const PLUGIN = 'reports';
const RUN_ID_PARAM = { name: 'run_id', in: 'path' as const, required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' } };

function runIdOf(c: AppContext): string {
  const runId = c.req.param('run_id') ?? '';
  if (!isValidRunId(runId)) throw notFound(`run ${runId.slice(0, 64)}`);
  return runId;
}

function intParam(c: AppContext, name: string, fallback: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) throw new Problem('validation_failed', { detail: `${name} must be an integer from 0 to ${max}`, errors: [{ path: `/${name}`, message: `must be from 0 to ${max}` }] });
  return value;
}

/** `GET …/transcript`: one page of units, or one task's (`task_id`), redacted like the report. */
async function transcriptHandler(c: AppContext) {
  const services = c.var.services;
  const runId = runIdOf(c);
  if (!(await readRun(services.store, runId))) throw notFound(`run ${runId}`);
  const offset = intParam(c, 'offset', 0, 1_000_000);
  const limit = intParam(c, 'limit', 50, 1000);
  const taskId = c.req.query('task_id');
  const plan = await readEvidenceJson<{ scenario?: unknown }>(services.store, runId, SIDECARS.scenario);
  const scenario = plan && typeof plan === 'object' && 'scenario' in plan ? (plan.scenario as never) : undefined;
  const transcript = buildTranscript(await readTraceEvents(services.store, runId), { redactor: services.use('redactor'), scenario });
  const units = taskId ? transcript.units.filter((unit) => unit.task_id === taskId) : transcript.units;
  return c.json({ run_id: runId, total: units.length, offset, limit, run: transcript.run, units: units.slice(offset, offset + limit) });
}

/** The headers of a report download. */
function reportHeaders(filename: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-disposition': `attachment; filename="${filename}"`,
    'content-security-policy': REPORT_CSP,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
}

function registerReportRoutes(host: PluginHost, publicUrl: string | undefined): void {
  host.routes.register({
    method: 'GET', path: '/api/v1/runs/:run_id/report', permission: 'runs:read', tags: ['evaluation'],
    summary: 'A self-contained HTML report of a run: scores and charts, failures with evidence, every task\'s transcript, the certificate and how to verify it offline',
    parameters: [RUN_ID_PARAM],
    responses: { 200: { description: 'One HTML file (inline CSS and SVG, no script, no external assets), as an attachment', contentType: 'text/html' } },
    async handler(c) {
      const runId = runIdOf(c);
      // The renderer (~8 modules) loads with the first report, not with every start (issue 36).
      const [{ renderReport }, { loadReportData }] = await Promise.all([import('./html.ts'), import('./report-data.ts')]);
      const html = renderReport(await loadReportData(c.var.services, runId, publicUrl));
      return c.body(html, 200, reportHeaders(`report-${runId}.html`));
    },
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/suites/:suite_id/report', permission: 'runs:read', tags: ['suites'],
    summary: 'A self-contained HTML report of a suite: each agent\'s aggregates, every run, the suite certificate, and each run in detail',
    parameters: [{ name: 'suite_id', in: 'path', required: true, schema: { type: 'string', pattern: '^suite_[a-z0-9]{1,80}$' } }],
    responses: { 200: { description: 'One HTML file, as an attachment', contentType: 'text/html' } },
    async handler(c) {
      const suiteId = c.req.param('suite_id') ?? '';
      const { loadSuiteReport, renderSuiteReport } = await import('./suite-report.ts');
      const html = renderSuiteReport(await loadSuiteReport(c.var.services, suiteId, publicUrl));
      return c.body(html, 200, reportHeaders(`report-${suiteId}.html`));
    },
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/runs/:run_id/transcript', permission: 'runs:read', tags: ['evaluation'],
    summary: 'The run\'s transcript task by task (inputs, turns, tool calls, world changes, metric verdicts), redacted',
    parameters: [RUN_ID_PARAM,
      { name: 'task_id', in: 'query', schema: { type: 'string' }, description: 'only this task (its original, variants and attempts)' },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 1000, default: 50 } }],
    responses: { 200: { description: 'Units in the order they ran', schema: { type: 'object', required: ['run_id', 'total', 'units'], properties: { run_id: { type: 'string' }, total: { type: 'integer' }, offset: { type: 'integer' }, limit: { type: 'integer' }, run: { type: 'array' }, units: { type: 'array' } } } } },
    handler: transcriptHandler,
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/runs/:run_id/links', permission: 'runs:read', tags: ['evaluation'],
    summary: 'The run\'s addresses (record, trace, certificate, verify, report, console page), absolute when AEH_PUBLIC_URL is set',
    parameters: [RUN_ID_PARAM],
    responses: { 200: { description: 'Links', schema: { type: 'object', required: ['run_id', 'public_url', 'links'], properties: { run_id: { type: 'string' }, public_url: { type: ['string', 'null'] }, links: { type: 'object' } } } } },
    async handler(c) {
      const runId = runIdOf(c);
      if (!(await readRun(c.var.services.store, runId))) throw notFound(`run ${runId}`);
      return c.json({ run_id: runId, public_url: publicUrl ?? null, links: runLinks(runId, publicUrl) });
    },
  }, PLUGIN);
}

export default {
  name: PLUGIN,
  version: '1.0.0',
  // It reports the runs the evaluation plugin records, redacted by the metrics plugin's redactor.
  dependencies: ['evaluation', 'metrics'],
  settings: textSettings({ AEH_PUBLIC_URL: 'The absolute URL this service is reached at: reports and links use it' }),
  setup(host) {
    registerReportRoutes(host, publicBaseUrl(asText(host.settings).AEH_PUBLIC_URL));
  },
} satisfies Plugin;
