/**
 * Plugins the foundation tests load next to the bundled ones: a second auth provider that grants only the
 * VIEWER role (to tell 401 from 403), JSON routes behind a permission the viewer lacks, and a route that fails
 * the way a bug does. They are real plugins, registered through the same host API users get.
 */
import type { Plugin } from '../core/plugin.ts';
import type { AuthProvider } from '../core/auth-manager.ts';
import { permissionsOfRole } from '../core/permissions.ts';
import type { Logger } from '../core/capabilities.ts';

/** The bearer token the viewer provider accepts. */
export const VIEWER_TOKEN = 'viewer-token-0123456789abcdef0123456789';

/** Recognises `VIEWER_TOKEN` and grants exactly the VIEWER role's permissions. */
export const viewerAuthPlugin: Plugin = {
  name: 'test-viewer-auth',
  setup(host) {
    const provider: AuthProvider = {
      name: 'test-viewer',
      async authenticate(credential) {
        if (credential.value !== VIEWER_TOKEN) return null;
        return { id: 'viewer@test', provider: 'test-viewer', permissions: [...permissionsOfRole('viewer')!] };
      },
    };
    host.authProviders.register(provider, 'test-viewer-auth');
  },
};

/** A JSON body schema with one required field, to reach `validation_failed`. */
export const ECHO_SCHEMA = {
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: { message: { type: 'string', maxLength: 64 } },
};

/** The message of the error `GET /api/test/boom` throws; it must never reach a client. */
export const BOOM_MESSAGE = 'secret internals: db password is hunter2';

/** Routes for the tests: a JSON echo needing `evaluations:launch`, and a route that throws. */
export const testRoutesPlugin: Plugin = {
  name: 'test-routes',
  setup(host) {
    host.routes.register({
      method: 'POST',
      path: '/api/test/echo',
      permission: 'evaluations:launch',
      summary: 'Echoes a JSON body',
      body: ECHO_SCHEMA,
      handler: (c) => c.json({ echoed: c.var.body, principal: c.var.principal?.id }),
    }, 'test-routes');
    host.routes.register({
      method: 'GET',
      path: '/api/test/boom',
      permission: 'system:read',
      summary: 'Fails like a bug',
      handler() {
        throw new TypeError(BOOM_MESSAGE);
      },
    }, 'test-routes');
    host.routes.register({
      method: 'GET',
      path: '/api/test/boom-later',
      permission: 'system:read',
      summary: 'Fails like a bug, after a turn of the event loop',
      async handler() {
        await new Promise((resolve) => setTimeout(resolve, 1));
        throw new TypeError(BOOM_MESSAGE);
      },
    }, 'test-routes');
    host.routes.register({
      method: 'GET',
      path: '/api/test/redirect',
      permission: null,
      summary: 'Answers a response whose headers cannot be changed',
      handler: () => Response.redirect('https://aeh.test/elsewhere', 302),
    }, 'test-routes');
  },
};

/** A logger that keeps every line, to assert what was (and was not) logged. */
export function captureLogger(): Logger & { lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }>; text(): string } {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const push = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields });
  };
  return {
    lines,
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    text: () => lines.map((line) => JSON.stringify(line)).join('\n'),
  };
}
