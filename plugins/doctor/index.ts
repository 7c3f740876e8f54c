/**
 * Environment health: `GET /api/v1/doctor` runs every registered check (these and the ones other plugins
 * add) and answers `{status: ok|warn|fail, checks: [{id, status, message, hint?}]}`.
 */
import type { Plugin } from '../../core/plugin.ts';
import { runDoctor } from './run-doctor.ts';
import { builtinChecks } from './checks.ts';

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
  setup(host) {
    for (const check of builtinChecks) host.doctorChecks.register(check, 'doctor');
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
    }, 'doctor');
  },
} satisfies Plugin;
