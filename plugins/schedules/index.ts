/**
 * Recurring evaluations: `POST /api/v1/schedules {cron, scenario_id|path|scenario, agent?, timezone}` (a file is
 * validated now and read again at each firing; an inline scenario is kept as validated), `GET /api/v1/schedules`,
 * `DELETE /api/v1/schedules/:schedule_id` (permission evaluations:launch; deleting also needs to be the creator
 * or a SUPERVISOR), fired by the `schedules.tick` job as their creator; plus the daily certificate expiry sweep.
 * A principal keeps at most `AEH_MAX_SCHEDULES_PER_PRINCIPAL` schedules. `agent` names a registered agent
 * (GET /api/v1/agents), looked up again at each firing, so a schedule follows the agent's current configuration
 * and a scenario with no agent of its own (an AES document) can be scheduled at all.
 */
import { Cron } from 'croner';
import type { Plugin } from '../../core/plugin.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { loadScenarioFile } from '../../core/scenario-file.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import { checkInlineScenarioId } from '../../core/domain/scenario-identity.ts';
import { AGENT_NAME } from '../../core/domain/agent-target.ts';
import { listSchedules, scheduleKey, scheduleView, type ScheduleRecord } from './store.ts';
import { schedulesTick } from './tick.ts';
import { expirySweep } from './expiry-sweep.ts';
import { storedCreator } from '../../core/delegation.ts';
import { ownsRecord } from '../../core/ownership.ts';

const SCHEDULE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['cron'],
  properties: {
    cron: { type: 'string', minLength: 9, maxLength: 100, description: 'five-field cron pattern (minute hour day month weekday)' },
    timezone: { type: 'string', maxLength: 64, description: 'IANA time zone, default UTC' },
    scenario_id: { type: 'string', minLength: 1, maxLength: 200, description: 'a catalog scenario' },
    path: { type: 'string', minLength: 1, maxLength: 4096, description: 'a scenario file under PROJECT_ROOT, validated now and read again at each firing (edits take effect without a restart)' },
    scenario: { type: 'object', description: 'a scenario inline (native or AES), validated now and kept with the schedule' },
    agent: { type: 'string', pattern: AGENT_NAME.source, description: 'a registered agent (GET /api/v1/agents) to run the scenario against, resolved at each firing' },
  },
  oneOf: [{ required: ['scenario_id'] }, { required: ['path'] }, { required: ['scenario'] }],
};

/** Runs `load`, placing the paths of the problem it throws under `place` of the request body. */
async function withPlace<T>(place: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const errors = error.errors?.length ? error.errors.map((inner) => ({ path: `${place}${inner.path === '/' || place === '/path' ? '' : inner.path}`, message: inner.message })) : [{ path: place, message: error.detail ?? error.code }];
    throw new Problem(error.code, { detail: `${place.slice(1)}: ${error.detail ?? error.code}`, errors, extra: error.extra });
  }
}

function validTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function nextRun(record: ScheduleRecord): string | null {
  return new Cron(record.cron, { paused: true, timezone: record.timezone }).nextRun()?.toISOString() ?? null;
}

export default {
  name: 'schedules',
  // A schedule launches its runs through the evaluation API and checks catalog ids when it is created.
  dependencies: ['evaluation', 'catalog'],
  setup(host) {
    host.jobs.register(schedulesTick, 'schedules');
    host.jobs.register(expirySweep, 'schedules');

    host.routes.register({
      method: 'POST', path: '/api/v1/schedules', permission: 'evaluations:launch', summary: 'Schedule a recurring evaluation', tags: ['evaluation'], audit: 'schedule', body: SCHEDULE_BODY,
      responses: { 201: { description: 'The schedule, with its next run' } },
      async handler(c) {
        const body = c.var.body as { cron: string; timezone?: string; scenario_id?: string; path?: string; scenario?: Record<string, unknown>; agent?: string };
        const services = c.var.services;
        const timezone = body.timezone ?? 'UTC';
        if (body.cron.trim().split(/\s+/).length !== 5) throw new Problem('validation_failed', { detail: 'cron must have five fields: minute hour day-of-month month day-of-week', errors: [{ path: '/cron', message: 'must have five fields' }] });
        if (!validTimezone(timezone)) throw new Problem('validation_failed', { detail: `unknown time zone "${timezone}"`, errors: [{ path: '/timezone', message: 'must be an IANA time zone' }] });
        try {
          new Cron(body.cron, { paused: true, timezone });
        } catch (error) {
          throw new Problem('validation_failed', { detail: `invalid cron pattern: ${(error as Error).message}`, errors: [{ path: '/cron', message: (error as Error).message }] });
        }
        if (body.scenario_id && !(await services.use('catalog').get(body.scenario_id))) throw notFound(`scenario ${body.scenario_id}`);
        // A file or inline scenario that could never run is refused now, not at its first firing.
        if (body.path) await withPlace('/path', () => loadScenarioFile(services, body.path!));
        const inline = body.scenario ? await withPlace('/scenario', async () => normalizeScenario(body.scenario, { formats: services.scenarioFormats.list() })) : undefined;
        // Every firing would be refused (409) for an inline scenario under a catalog scenario's id: refused now.
        if (inline) await checkInlineScenarioId(services, inline);
        if (body.agent && !(await services.find('agentTargets')?.get(body.agent))) throw notFound(`agent ${body.agent}`);
        const principal = c.var.principal!;
        const limit = services.config.quotas.schedulesPerPrincipal;
        const owned = (await listSchedules(services.store)).filter((record) => ownsRecord(principal, record.created_by, record.created_at)).length;
        if (owned >= limit) {
          throw new Problem('quota_exceeded', {
            detail: `you already keep ${owned} schedules; the limit per principal is ${limit} (AEH_MAX_SCHEDULES_PER_PRINCIPAL). Delete one first.`,
            headers: { 'Retry-After': '60' },
            extra: { limit, outstanding: owned },
          });
        }
        const record: ScheduleRecord = {
          schedule_id: crypto.randomUUID(), cron: body.cron.trim(), timezone, scenario_id: body.scenario_id, path: body.path, ...(inline ? { scenario: inline } : {}),
          ...(body.agent ? { agent: body.agent } : {}), created_at: new Date(services.now()).toISOString(), created_by: principal.id,
          creator: storedCreator(principal),
        };
        await services.store.setJson(scheduleKey(record.schedule_id), record);
        return c.json({ ...scheduleView(record), next_run: nextRun(record) }, 201, { Location: `/api/v1/schedules/${record.schedule_id}` });
      },
    }, 'schedules');

    host.routes.register({
      method: 'GET', path: '/api/v1/schedules', permission: 'evaluations:launch', summary: 'List scheduled evaluations', tags: ['evaluation'],
      async handler(c) {
        const records = await listSchedules(c.var.services.store);
        return c.json({ items: records.map((record) => ({ ...scheduleView(record), next_run: record.disabled ? null : nextRun(record) })) });
      },
    }, 'schedules');

    host.routes.register({
      method: 'DELETE', path: '/api/v1/schedules/:schedule_id', permission: 'evaluations:launch', summary: 'Delete a scheduled evaluation', tags: ['evaluation'], audit: 'unschedule',
      responses: { 204: { description: 'Deleted' } },
      async handler(c) {
        const id = c.req.param('schedule_id') ?? '';
        const record = /^[0-9a-f-]{36}$/.test(id) ? await c.var.services.store.getJson<ScheduleRecord>(scheduleKey(id)) : null;
        if (!record) throw notFound(`schedule ${id}`);
        const principal = c.var.principal!;
        if (!ownsRecord(principal, record.created_by, record.created_at) && !principal.permissions.includes('*')) {
          throw new Problem('forbidden', { detail: 'only the schedule\'s creator or a SUPERVISOR may delete it', extra: { permission: '*' } });
        }
        await c.var.services.store.remove(scheduleKey(id));
        return c.body(null, 204);
      },
    }, 'schedules');
  },
} satisfies Plugin;
