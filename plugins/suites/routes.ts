/**
 * The suites API: `POST /api/v1/suites` (202 once the first run of each agent is queued; the rest are launched in
 * the background), `GET /api/v1/suites` (newest first), `GET /api/v1/suites/:suite_id` (runs and per-agent
 * aggregates; issues the suite certificate when it is due), the certificate, its evidence files and
 * `GET /api/v1/verify/suite/:suite_id`.
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext, RouteDefinition } from '../../core/routes.ts';
import type { Principal } from '../../core/auth-manager.ts';
import type { Services } from '../../core/services.ts';
import type { SuiteView } from '../../core/domain/suites.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { respond, respondJson } from '../../core/respond.ts';
import { deletedSuiteRuns, suiteView, readSuiteRuns } from './aggregate.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import { certificateBlocker, issueSuiteCertificate, readRunCertificates, suiteEvidence, verifySuite } from './certificate.ts';
import { launchEntry, launchRemaining, settleEntry, type LaunchControl } from './launch.ts';
import { acquireLease } from './lease.ts';
import { agentsOf, MAX_RUNS, scenarioIdsOf, SUITE_BODY, type SuiteBody } from './request.ts';
import { isSuiteId, listSuiteIds, newSuiteId, readSuite, suiteKeys, type SuiteRecord } from './store.ts';
import { storedCreator } from '../../core/delegation.ts';
import { verifyCertificate } from '../../core/domain/verify-certificate.ts';
import type { JWK } from 'jose';
import { assertAboveFloor, floorDefaults, RELAX_PERMISSION } from '../../core/domain/policy-strength.ts';
import { resolvePolicy } from '../../core/domain/verdict-policy.ts';
import { permissionCheck } from '../../core/permissions.ts';

const PLUGIN = 'suites';
const SUITE_PARAM = { name: 'suite_id', in: 'path' as const, required: true, schema: { type: 'string', pattern: '^suite_[a-z0-9]{1,80}$' } };
const encoder = new TextEncoder();

function suiteIdOf(c: AppContext): string {
  const suiteId = c.req.param('suite_id') ?? '';
  if (!isSuiteId(suiteId)) throw notFound(`suite "${suiteId.slice(0, 64)}"`);
  return suiteId;
}

/** The status of a deleted run's kept certificate, verified alone against the published keys. */
async function certificateAloneStatus(services: Services, runId: string, keys: JWK[], now: number): Promise<string> {
  const response = await services.dispatch(new Request(`http://suites.internal/v1/certificates/${runId}`));
  if (response.status !== 200) return `certificate ${response.status}`;
  return (await verifyCertificate(await response.json(), { keys, source: null, now })).status;
}

/**
 * Each run certificate of a suite, verified by the public run verify; one whose run retention deleted is checked
 * alone (schema, signatures, expiry), as its evidence is gone.
 */
async function checkRunCertificates(services: Services, runIds: string[], published: JWK[]): Promise<{ check: { id: string; ok: boolean; detail: string }; bad: string[] }> {
  const bad: string[] = [];
  let deleted = 0;
  for (let start = 0; start < runIds.length; start += 8) {
    await Promise.all(runIds.slice(start, start + 8).map(async (runId) => {
      const response = await services.dispatch(new Request(`http://suites.internal/api/v1/verify/${runId}`));
      const report = (await response.json().catch(() => ({}))) as { status?: string; code?: string };
      const status = response.status === 410 && report.code === 'run_deleted' ? (deleted++, await certificateAloneStatus(services, runId, published, services.now())) : report.status;
      if (status !== 'valid') bad.push(`${runId}: ${status ?? response.status}`);
    }));
  }
  const alone = deleted ? `; ${deleted} of them deleted by retention, checked as certificates alone (their evidence is gone, nothing re-hashed)` : '';
  return { bad, check: { id: 'run_certificates', ok: bad.length === 0, detail: bad.length ? `${bad.length} run certificate(s) do not verify: ${bad.slice(0, 5).join('; ')}${alone}` : `${runIds.length} run certificate(s) verify${alone}` } };
}

/**
 * The suite with its aggregates and certificate state; issues the certificate when every run has one.
 * `finished` is a run record newer than storage's: the one `run.finished` carries, stored only once its
 * handlers return.
 */
export async function loadSuiteView(services: Services, suiteId: string, finished?: RunRecord): Promise<SuiteView | null> {
  const record = await readSuite(services.store, suiteId);
  if (!record) return null;
  const runs = await readSuiteRuns(services.store, record);
  if (finished && record.entries.some((entry) => entry.run_id === finished.run_id)) runs.set(finished.run_id, finished);
  const view = suiteView(record, runs, await deletedSuiteRuns(services.store, record, runs));
  let issued = await services.store.has(suiteKeys.certificate(suiteId));
  let blocker: ReturnType<typeof certificateBlocker> = null;
  if (!issued) {
    blocker = certificateBlocker(record, await readRunCertificates(services, record), runs);
    if (!blocker) {
      try {
        issued = (await issueSuiteCertificate(services, record, view, runs)) !== null || (await services.store.has(suiteKeys.certificate(suiteId)));
      } catch (error) {
        // Said, not thrown: a reader must see why rather than a 500 it would retry for ever (issue 36).
        const message = String((error as Error)?.message ?? error).slice(0, 300);
        services.logger.error('suites: the suite certificate could not be issued; the next read tries again', { suite_id: suiteId, error: message });
        blocker = { status: 'unavailable', detail: `the certificate could not be issued (${message}); the next read of the suite tries again` };
      }
    }
  }
  const certificate: SuiteView['certificate'] = issued
    ? { status: 'issued', detail: 'signed over the manifest and every run certificate', url: `/api/v1/suites/${suiteId}/certificate`, verify_url: `/api/v1/verify/suite/${suiteId}` }
    : { status: blocker?.status ?? 'pending', detail: blocker?.detail ?? 'being issued', url: null, verify_url: null };
  return { ...view, certificate };
}

/** Launches the first run of each agent now, so a refused agent fails the request; cancels them if one is refused. */
async function launchFirsts(services: Services, record: SuiteRecord, principal: Principal): Promise<void> {
  const firstIndexes = record.agents.map((agent) => record.entries.findIndex((entry) => entry.agent === agent.key));
  const firsts = firstIndexes.map((entryIndex) => record.entries[entryIndex]!);
  for (const [index, entry] of firsts.entries()) {
    const outcome = await launchEntry(services, record, firstIndexes[index]!, principal);
    if ('error' in outcome && outcome.retryAfterS !== undefined) continue; // quota: the background launcher waits
    if ('error' in outcome) {
      await Promise.all(firsts.slice(0, index).filter((launched) => launched.task_id).map((launched) => services.dispatchAs(new Request(`http://suites.internal/api/v1/tasks/${launched.task_id}`, { method: 'DELETE' }), principal)));
      const agentPath = record.agents.length > 1 || record.agents[0]!.key !== 'scenario' ? `/agents/${index}` : '/scenarios/0';
      throw new Problem(outcome.error.status === 404 ? 'not_found' : outcome.error.status === 403 ? 'forbidden' : 'validation_failed', {
        detail: `the evaluation of ${entry.scenario_id} with agent ${entry.agent} was refused: ${outcome.error.detail}`,
        errors: [{ path: agentPath, message: outcome.error.detail }],
      });
    }
    await settleEntry(services, record.suite_id, entry, outcome);
  }
}

type Settle = (services: Services, suiteId: string) => Promise<void>;

function createRoute(settle: Settle, control: LaunchControl): RouteDefinition {
  return {
    method: 'POST', path: '/api/v1/suites', permission: 'evaluations:launch', tags: ['suites'], audit: 'suite.create',
    summary: 'Evaluate a set of scenarios (catalog ids, scenario files, inline scenarios, or a catalog query) against one or more agents',
    body: SUITE_BODY as unknown as Record<string, unknown>,
    responses: { 202: { description: 'Accepted: the first run of each agent is queued, the rest are being launched; poll status_url' } },
    async handler(c) {
      const services = c.var.services;
      const body = c.var.body as SuiteBody;
      const agents = agentsOf(body);
      const { ids, query, own } = await scenarioIdsOf(services, body);
      if (ids.length * agents.length > MAX_RUNS) {
        throw new Problem('validation_failed', { detail: `${ids.length} scenarios × ${agents.length} agents is ${ids.length * agents.length} runs; a suite may have ${MAX_RUNS}`, errors: [{ path: '/scenarios', message: 'too many runs' }] });
      }
      const principal = c.var.principal!;
      // A suite's policy below the operator's floor is refused before any run is launched (each run checks again).
      const floor = services.config.verdictFloor;
      assertAboveFloor(resolvePolicy(floorDefaults(floor), body.verdict), floor, [{ policy: body.verdict, at: '/verdict' }], permissionCheck(RELAX_PERMISSION)(principal.permissions));
      const now = services.now();
      const record: SuiteRecord = {
        suite_id: newSuiteId(now), name: body.name ?? null, created_at: new Date(now).toISOString(), created_by: principal.id,
        creator: storedCreator(principal),
        query, scenario_ids: ids, agents,
        entries: agents.flatMap((agent) => ids.map((scenarioId) => ({ scenario_id: scenarioId, agent: agent.key, run_id: null, task_id: null }))),
        launched: false,
        ...(body.cache === true ? { cache: true } : {}),
        ...(body.verdict ? { verdict: body.verdict } : {}),
        ...(Object.keys(own).length ? { own_scenarios: own } : {}),
      };
      await launchFirsts(services, record, principal);
      // Held before the marker exists, so an instance starting now does not take the suite for an interrupted one.
      const lease = await acquireLease(services, record.suite_id);
      await Promise.all([
        services.store.setJson(suiteKeys.record(record.suite_id), record),
        services.store.append(suiteKeys.index(record.suite_id), encoder.encode(record.created_at)),
        services.store.append(suiteKeys.launching(record.suite_id), encoder.encode(record.created_at)),
      ]);
      // Not awaited: acceptance must not wait for hundreds of submissions (the suite shows them as `pending`).
      if (lease) void launchRemaining(services, record, { lease, control, done: () => settle(services, record.suite_id) });
      const statusUrl = `/api/v1/suites/${record.suite_id}`;
      return c.json({ suite_id: record.suite_id, status: 'launching', runs: record.entries.length, scenarios: ids.length, agents: agents.map((agent) => agent.key), status_url: statusUrl }, 202, { Location: statusUrl });
    },
  };
}

function limitOf(raw: string | undefined): number {
  const limit = raw === undefined ? 20 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Problem('validation_failed', { detail: 'limit must be an integer from 1 to 100', errors: [{ path: '/limit', message: 'must be an integer from 1 to 100' }] });
  return limit;
}

/** Registers the suites routes; `settle` issues the certificate when it is due; `control` stops launchers at stop. */
export function registerSuiteRoutes(host: PluginHost, settle: Settle, control: LaunchControl): void {
  host.routes.register(createRoute(settle, control), PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/suites', permission: 'runs:read', tags: ['suites'], summary: 'Suites, newest first',
    parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }, { name: 'cursor', in: 'query', schema: { type: 'string' } }],
    async handler(c) {
      const store = c.var.services.store;
      const cursor = c.req.query('cursor');
      if (cursor !== undefined && !isSuiteId(cursor)) throw new Problem('validation_failed', { detail: 'cursor must be the next_cursor of a previous page', errors: [{ path: '/cursor', message: 'is not a cursor' }] });
      const page = await listSuiteIds(store, limitOf(c.req.query('limit')), cursor);
      const records = (await Promise.all(page.ids.map((id) => readSuite(store, id)))).filter((record) => record !== null);
      const certified = await Promise.all(records.map((record) => store.has(suiteKeys.certificate(record.suite_id))));
      const items = records.map((record, index) => ({
        suite_id: record.suite_id, name: record.name, created_at: record.created_at, created_by: record.created_by,
        scenarios: record.scenario_ids.length, agents: record.agents.map((agent) => agent.key), runs: record.entries.length,
        launched: record.launched, certified: certified[index], status_url: `/api/v1/suites/${record.suite_id}`,
      }));
      return c.json({ items, next_cursor: page.next_cursor });
    },
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/suites/:suite_id', permission: 'runs:read', tags: ['suites'], parameters: [SUITE_PARAM],
    summary: 'A suite: its runs with their statuses and, per agent, index, dimensions, pass rate and failures by code',
    async handler(c) {
      const suiteId = suiteIdOf(c);
      const view = await loadSuiteView(c.var.services, suiteId);
      if (!view) throw notFound(`suite ${suiteId}`);
      return c.json(view);
    },
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/suites/:suite_id/certificate', permission: null, tags: ['suites'], parameters: [SUITE_PARAM],
    summary: 'The suite certificate (3.0.0): signed over the manifest and the digest of every run certificate',
    async handler(c) {
      const suiteId = suiteIdOf(c);
      const bytes = await c.var.services.store.getBytes(suiteKeys.certificate(suiteId));
      if (!bytes) throw notFound(`a certificate for suite ${suiteId}`);
      return respond(c, bytes as Uint8Array<ArrayBuffer>, 200, 'application/json', { 'cache-control': 'public, no-cache' });
    },
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/suites/:suite_id/evidence/:file', permission: 'runs:export', tags: ['suites'],
    parameters: [SUITE_PARAM, { name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
    summary: 'An evidence file of the suite certificate: manifest.json or <run_id>.certificate.json, byte for byte what the certificate hashes',
    async handler(c) {
      const suiteId = suiteIdOf(c);
      const file = c.req.param('file') ?? '';
      const bytes = await suiteEvidence(c.var.services, suiteId, file);
      if (!bytes) throw notFound(`evidence file "${file.slice(0, 80)}" of suite ${suiteId}`);
      return respond(c, bytes as Uint8Array<ArrayBuffer>, 200, 'application/json', { 'content-disposition': `attachment; filename="${file}"` });
    },
  }, PLUGIN);
  host.routes.register({
    method: 'GET', path: '/api/v1/verify/suite/:suite_id', permission: null, tags: ['suites', 'certification'], parameters: [SUITE_PARAM],
    summary: 'Public audit of a suite certificate: the manifest, every run certificate digest, the signatures, expiry, and each run certificate',
    async handler(c) {
      const suiteId = suiteIdOf(c);
      const services = c.var.services;
      const jwks = await services.dispatch(new Request('http://suites.internal/.well-known/jwks.json'));
      const published = jwks.status === 200 ? ((await jwks.json()) as { keys: never[] }).keys : [];
      const verified = await verifySuite(services, suiteId, published);
      if (!verified) throw notFound(`a certificate for suite ${suiteId}`);
      const { result } = verified;
      const ledger = Object.keys((verified.certificate as { evidence_ledger?: Record<string, string> })?.evidence_ledger ?? {});
      const runIds = ledger.map((file) => file.replace(/\.certificate\.json$/, ''));
      const { check, bad } = await checkRunCertificates(services, runIds, published);
      result.checks.push(check);
      if (bad.length && result.status === 'valid') Object.assign(result, { status: 'invalid', valid: false });
      return respondJson(c, { suite_id: suiteId, ...result, certificate: verified.certificate, checked_at: new Date(services.now()).toISOString() }, 200, { 'cache-control': 'no-store' });
    },
  }, PLUGIN);
}
