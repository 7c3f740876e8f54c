/**
 * Environment health: `GET /api/v1/doctor` runs every registered check (these and the ones other plugins
 * add) and answers `{status: ok|warn|fail, checks: [{id, status, message, hint?}]}`.
 */
import type { Plugin } from '../../core/plugin.ts';
import { runDoctor } from './run-doctor.ts';
import { builtinChecks } from './checks.ts';
import { createHealthMonitor } from './health-monitor.ts';
import { asText, textSettings } from '../../core/plugin-settings.ts';

const CHECK_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'message'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['ok', 'warn', 'fail'] },
    message: { type: 'string' },
    hint: { type: 'string' },
    details: { type: 'object' },
  },
};

export default {
  name: 'doctor',
  settings: textSettings({ AEH_HEALTH_MAX_AGE_MS: 'How old the health GET /api/info reports may be before the checks run again (milliseconds, default 30000)' }),
  setup(host) {
    for (const check of builtinChecks) host.doctorChecks.register(check);
    const maxAgeMs = Number(asText(host.settings).AEH_HEALTH_MAX_AGE_MS ?? 30_000);
    if (!Number.isInteger(maxAgeMs) || maxAgeMs < 0) throw new Error('AEH_HEALTH_MAX_AGE_MS must be a whole number of milliseconds');
    // The first run starts with the first GET /api/info, after every plugin's start hook (the queue check needs
    // the engine running); until it ends the health is `unknown`.
    host.provide('health', (services) => createHealthMonitor(services, maxAgeMs));
    host.routes.register({
      method: 'GET',
      path: '/api/v1/doctor',
      permission: 'doctor:read',
      summary: 'Environmental health audit: project readiness, plugin loading, catalog integrity',
      tags: ['triage'],
      responses: {
        200: {
          description: 'Every check with its status; the overall status is the worst one',
          schema: { type: 'object', required: ['status', 'checks'], properties: { status: { enum: ['ok', 'warn', 'fail'] }, checks: { type: 'array', items: CHECK_SCHEMA } } },
        },
      },
      async handler(c) {
        return c.json(await runDoctor(c.var.services));
      },
    });
  },
} satisfies Plugin;
