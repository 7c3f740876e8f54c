/**
 * `/api/v1/keys` (`identity:manage`, SUPERVISOR): create a scoped API key (the secret is in the answer once),
 * list and read keys without secrets, revoke one. A key never grants more than its creator holds, and only a
 * caller holding every grant of a key may revoke it.
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext } from '../../core/routes.ts';
import { Problem } from '../../core/problems.ts';
import { PERMISSION_NODES, permissionCheck } from '../../core/permissions.ts';
import { hashSecret, hmacKey, nameKey, newToken, recordKey, view, type ApiKeyRecord } from './api-key-store.ts';
import { grantsOf } from './api-key-grants.ts';

const NAME = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const PERMISSION = `^(\\*|(${PERMISSION_NODES.map((node) => node.split(':')[0]).filter((area, index, all) => all.indexOf(area) === index).join('|')}):(\\*|[a-z_]+(?:-[a-z_]+)*))$`;
/** Keys live at most five years; a longer-lived credential should be a workload identity (OIDC). */
const MAX_LIFETIME_MS = 5 * 366 * 24 * 60 * 60 * 1000;

export const CREATE_KEY = {
  $id: 'https://aeh.dev/schemas/api-key-create.json',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: NAME, description: 'Unique among live keys; audit entries name the key by it' },
    roles: { type: 'array', maxItems: 4, uniqueItems: true, items: { enum: ['viewer', 'auditor', 'operator', 'supervisor'] } },
    permissions: { type: 'array', maxItems: 32, uniqueItems: true, items: { type: 'string', pattern: PERMISSION } },
    expires_at: { type: 'string', format: 'date-time', description: 'When the key stops working (at most five years ahead)' },
    description: { type: 'string', maxLength: 500 },
  },
} as const;

interface CreateBody {
  name: string;
  roles?: string[];
  permissions?: string[];
  expires_at?: string;
  description?: string;
}

function checkCreate(c: AppContext, body: CreateBody): void {
  if (!body.roles?.length && !body.permissions?.length) throw new Problem('validation_failed', { detail: 'give roles or permissions: a key that grants nothing is of no use', errors: [{ path: '/roles', message: 'roles or permissions are required' }] });
  if (body.expires_at !== undefined) {
    const at = Date.parse(body.expires_at);
    const now = c.var.services.now();
    if (!(at > now) || at - now > MAX_LIFETIME_MS) throw new Problem('validation_failed', { detail: 'expires_at must be in the future and at most five years ahead', errors: [{ path: '/expires_at', message: 'must be in the future, at most five years ahead' }] });
  }
  // No escalation: every permission the key would hold must be one its creator holds.
  const beyond = beyondCaller(c, body);
  if (beyond.length) throw new Problem('forbidden', { detail: `a key cannot grant more than its creator holds: ${beyond.slice(0, 5).join(', ')}` });
}

/** The grants of a key (as resolved now) that the caller does not hold. */
function beyondCaller(c: AppContext, key: { roles?: string[]; permissions?: string[] }): string[] {
  const held = c.var.principal!.permissions;
  return grantsOf(c.var.services.auth, key).filter((node) => !permissionCheck(node)(held));
}

async function createKey(c: AppContext): Promise<Response> {
  const body = c.var.body as CreateBody;
  checkCreate(c, body);
  const { store } = c.var.services;
  const { id, secret, token } = newToken();
  if (!(await store.setIfAbsent(nameKey(body.name), JSON.stringify({ id })))) throw new Problem('conflict', { detail: `a live key is already named "${body.name}"` });
  const record: ApiKeyRecord = {
    id,
    name: body.name,
    prefix: token.slice(0, 22),
    roles: body.roles ?? [],
    permissions: body.permissions ?? [],
    created_at: new Date(c.var.services.now()).toISOString(),
    created_by: c.var.principal!.id,
    ...(body.expires_at ? { expires_at: new Date(body.expires_at).toISOString() } : {}),
    hash: hashSecret(await hmacKey(store), secret),
  };
  await store.setJson(recordKey(id), record);
  c.header('cache-control', 'no-store');
  return c.json({ ...(await view(store, record)), secret: token, note: 'the secret is shown this once; store it now' }, 201);
}

async function readKey(c: AppContext): Promise<ApiKeyRecord> {
  const id = c.req.param('id') ?? '';
  const record = /^[a-z0-9]{16}$/.test(id) ? await c.var.services.store.getJson<ApiKeyRecord>(recordKey(id)) : null;
  if (!record) throw new Problem('not_found', { detail: `no API key has the id "${id.slice(0, 40)}"` });
  return record;
}

export function registerKeyRoutes(host: PluginHost): void {
  const common = { permission: 'identity:manage', tags: ['identity'] };
  host.schemas.register({ name: 'ApiKeyCreate', schema: CREATE_KEY as unknown as Record<string, unknown> });
  host.routes.register({ ...common, method: 'POST', path: '/api/v1/keys', summary: 'Create a scoped API key; the answer holds its secret, once', body: CREATE_KEY as unknown as Record<string, unknown>, audit: 'key.create', handler: createKey });
  host.routes.register({
    ...common, method: 'GET', path: '/api/v1/keys', summary: 'API keys, without secrets, newest first',
    async handler(c) {
      const { store } = c.var.services;
      const records = await Promise.all((await store.keys('api-keys')).map((key) => store.getJson<ApiKeyRecord>(key)));
      const items = (await Promise.all(records.filter((record): record is ApiKeyRecord => record !== null).map((record) => view(store, record)))).sort((a, b) => b.created_at.localeCompare(a.created_at));
      return c.json({ items });
    },
  });
  host.routes.register({ ...common, method: 'GET', path: '/api/v1/keys/:id', summary: 'One API key, without its secret', handler: async (c) => c.json(await view(c.var.services.store, await readKey(c))) });
  host.routes.register({
    ...common, method: 'DELETE', path: '/api/v1/keys/:id', summary: 'Revoke an API key, at once on every instance sharing the store', audit: 'key.revoke',
    async handler(c) {
      const record = await readKey(c);
      // Issue 25 item 9: a key manager without `*` must not be able to take a SUPERVISOR's key away.
      const beyond = beyondCaller(c, record);
      if (beyond.length) throw new Problem('forbidden', { detail: `a caller cannot revoke a key holding what it does not hold: ${beyond.slice(0, 5).join(', ')}` });
      if (!record.revoked_at) {
        const revoked = { ...record, revoked_at: new Date(c.var.services.now()).toISOString(), revoked_by: c.var.principal!.id };
        await c.var.services.store.setJson(recordKey(record.id), revoked);
        await c.var.services.store.remove(nameKey(record.name)); // the name may be used again
        return c.json(await view(c.var.services.store, revoked));
      }
      return c.json(await view(c.var.services.store, record));
    },
  });
}
