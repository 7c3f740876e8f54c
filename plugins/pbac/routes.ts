/**
 * PBAC configuration routes (`pbac:configure`, SUPERVISOR): read the role table and the claim mappings, change
 * one role or the mappings. Every change is a new version (optimistic: give `version` to refuse a change made on
 * top of a table someone else changed meanwhile), audited as `pbac.update`.
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext } from '../../core/routes.ts';
import { Problem, type FieldError } from '../../core/problems.ts';
import { addedGrants, beyondEditor, roleNodes, claimGrantsBeyond, lockOutErrors, unknownPermissions } from './rules.ts';
import { readTable, versionKey, writeTable, type ClaimMappings, type PbacTable } from './table.ts';
import { describeErrors } from '../../core/validate.ts';

const BUILT_IN = ['viewer', 'auditor', 'operator', 'supervisor'];
const ROLE = '^[a-z][a-z0-9_-]{0,39}$';

const ROLE_BODY = {
  type: 'object', additionalProperties: false, required: ['permissions'],
  properties: {
    permissions: { type: 'array', maxItems: 64, uniqueItems: true, items: { type: 'string', maxLength: 64 } },
    version: { type: 'integer', minimum: 0, description: 'The version this change is based on; a newer one answers 409' },
  },
};
const CLAIMS_BODY = {
  type: 'object', additionalProperties: false, required: ['groups'],
  properties: {
    groups_claim: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.:/-]{0,99}$' },
    groups: { type: 'object', maxProperties: 500, propertyNames: { maxLength: 200 }, additionalProperties: { type: 'string', pattern: ROLE } },
    version: { type: 'integer', minimum: 0 },
  },
};

/** 403 for a change that would grant what its editor does not hold (issue 25 item 2). */
function beyondHeld(what: string, nodes: string[]): Problem {
  return new Problem('forbidden', { detail: `${what}: a PBAC change cannot grant what it does not hold: ${nodes.slice(0, 5).join('; ')}` });
}

function invalid(detail: string, errors: FieldError[]): Problem {
  return new Problem('validation_failed', { detail: `${detail}: ${describeErrors(errors)}`, errors });
}

/** Writes a change on top of the current table, or answers 409 when it is not the version the client saw. */
async function change(c: AppContext, given: number | undefined, edit: (table: PbacTable) => Omit<PbacTable, 'version'>): Promise<PbacTable> {
  const { store, now } = c.var.services;
  const base = await readTable(store);
  if (given !== undefined && given !== base.version) throw new Problem('conflict', { detail: `the table is at version ${base.version}, not ${given}: read it again and re-apply the change` });
  const next = { ...edit(base), updated_at: new Date(now()).toISOString(), updated_by: c.var.principal!.id };
  const locked = lockOutErrors(next);
  if (locked.length) throw new Problem('conflict', { detail: locked[0].message });
  const written = await writeTable(store, base, next);
  if (!written) throw new Problem('conflict', { detail: 'another change was written at the same moment: read the table again and re-apply the change' });
  return written;
}

function roleOf(c: AppContext): string {
  const role = (c.req.param('role') ?? '').toLowerCase();
  if (!new RegExp(ROLE).test(role)) throw new Problem('not_found', { detail: `no role is named "${role.slice(0, 40)}"` });
  return role;
}

export function registerPbacRoutes(host: PluginHost, applied: (table: PbacTable) => void): void {
  const common = { permission: 'pbac:configure', tags: ['identity'] };
  host.routes.register({ ...common, method: 'GET', path: '/api/v1/roles', summary: 'The role → permission table and the claim mappings in force, with their version', handler: async (c) => c.json(await readTable(c.var.services.store)) });
  host.routes.register({
    ...common, method: 'GET', path: '/api/v1/roles/:role', summary: 'One role\'s permissions',
    async handler(c) {
      const role = roleOf(c);
      const table = await readTable(c.var.services.store);
      if (!Object.hasOwn(table.roles, role)) throw new Problem('not_found', { detail: `no role is named "${role}"` });
      return c.json({ role, permissions: table.roles[role], version: table.version });
    },
  });
  host.routes.register({
    ...common, method: 'PUT', path: '/api/v1/roles/:role', summary: 'Set a role\'s permissions (a new role is created); in force on every instance within seconds', body: ROLE_BODY, audit: 'pbac.update',
    async handler(c) {
      const role = roleOf(c);
      const body = c.var.body as { permissions: string[]; version?: number };
      const errors = unknownPermissions(body.permissions, '/permissions');
      if (errors.length) throw invalid('unknown permissions', errors);
      const table = await change(c, body.version, (base) => {
        const beyond = beyondEditor(c.var.principal!.permissions, addedGrants(roleNodes(base, role), body.permissions));
        if (beyond.length) throw beyondHeld(`role "${role}"`, beyond);
        return { ...base, roles: { ...base.roles, [role]: [...body.permissions] } };
      });
      applied(table);
      return c.json({ role, permissions: table.roles[role], version: table.version });
    },
  });
  host.routes.register({
    ...common, method: 'DELETE', path: '/api/v1/roles/:role', summary: 'Remove a role of your own (the four of the contract stay)', audit: 'pbac.update',
    async handler(c) {
      const role = roleOf(c);
      if (BUILT_IN.includes(role)) throw new Problem('bad_request', { detail: `"${role}" is a role of the contract; set its permissions instead` });
      const table = await change(c, undefined, (base) => {
        if (!Object.hasOwn(base.roles, role)) throw new Problem('not_found', { detail: `no role is named "${role}"` });
        const mapped = Object.entries(base.claims.groups).filter(([, target]) => target === role).map(([group]) => group);
        if (mapped.length) throw new Problem('conflict', { detail: `groups still map to "${role}": ${mapped.slice(0, 5).join(', ')}` });
        const { [role]: _removed, ...roles } = base.roles;
        return { ...base, roles };
      });
      applied(table);
      return c.json({ removed: role, version: table.version });
    },
  });
  host.routes.register({ ...common, method: 'GET', path: '/api/v1/roles-claims', summary: 'Which claim holds groups, and which role each group stands for', handler: async (c) => c.json({ ...(await readTable(c.var.services.store)).claims }) });
  host.routes.register({
    ...common, method: 'PUT', path: '/api/v1/roles-claims', summary: 'Set the group → role mappings of identity-provider claims', body: CLAIMS_BODY, audit: 'pbac.update',
    async handler(c) {
      const body = c.var.body as Partial<ClaimMappings> & { groups: Record<string, string>; version?: number };
      const table = await change(c, body.version, (base) => {
        const unknown = Object.entries(body.groups).filter(([, role]) => !Object.hasOwn(base.roles, role));
        if (unknown.length) throw invalid('groups map to unknown roles', unknown.map(([group, role]) => ({ path: `/groups/${group}`, message: `"${role}" is not a role` })));
        const groups = Object.fromEntries(Object.entries(body.groups).map(([group, role]) => [group.toLowerCase(), role]));
        const next = { ...base, claims: { groups_claim: body.groups_claim ?? base.claims.groups_claim, groups } };
        const beyond = claimGrantsBeyond(c.var.principal!.permissions, base, next);
        if (beyond.length) throw beyondHeld('the group mappings', beyond);
        return next;
      });
      applied(table);
      return c.json({ ...table.claims, version: table.version });
    },
  });
  host.routes.register({
    ...common, method: 'GET', path: '/api/v1/roles-versions/:version', summary: 'A past version of the table, as it was written',
    async handler(c) {
      const version = Number(c.req.param('version'));
      const table = Number.isInteger(version) && version > 0 ? await c.var.services.store.getJson<PbacTable>(versionKey(version)) : null;
      if (!table) throw new Problem('not_found', { detail: `no version ${String(c.req.param('version')).slice(0, 20)} of the table` });
      return c.json(table);
    },
  });
}
