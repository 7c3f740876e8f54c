/**
 * PBAC configuration as data (the spec's SUPERVISOR "PBAC configuration"): the role → permission table and the
 * group → role mappings of identity-provider claims live in the shared store, are changed through
 * `/api/v1/roles` (routes.ts), and are in force on every instance within `AEH_PBAC_REFRESH_MS` (2 s): each
 * instance answers from the table it holds and, when that is older than the interval, reads the version number
 * again in the background. With nothing stored, the contract's table is in force.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { OverrideThis } from '../../core/plugin.ts';
import type { AuthManagerInstance } from '../../core/auth-manager.ts';
import type { Services } from '../../core/services.ts';
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { currentVersion, DEFAULT_TABLE, readTable, type PbacTable } from './table.ts';
import { registerPbacRoutes } from './routes.ts';

function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const raw = claims[claim];
  if (typeof raw === 'string') return raw.split(/[\s,]+/).filter(Boolean);
  return Array.isArray(raw) ? raw.filter((group): group is string => typeof group === 'string') : [];
}

function createTableHolder(refreshMs: number) {
  let table: PbacTable = DEFAULT_TABLE;
  let services: Services | undefined;
  let checkedAt = -Infinity;
  let checking: Promise<void> | undefined;
  const apply = (next: PbacTable) => {
    if (next.version >= table.version) table = next;
  };
  const check = async (started: Services) => {
    if ((await currentVersion(started.store)) !== table.version) apply(await readTable(started.store));
  };
  return {
    apply,
    async start(started: Services) {
      services = started;
      apply(await readTable(started.store));
      checkedAt = started.now();
    },
    /** The table in force; starts a background check of the stored version when the last one is stale. */
    current(): PbacTable {
      if (services && !checking && services.now() - checkedAt >= refreshMs) {
        checkedAt = services.now();
        checking = check(services).catch((error: unknown) => services!.logger.warn('PBAC table could not be read; the last one stays in force', { error: (error as Error).message })).finally(() => {
          checking = undefined;
        });
      }
      return table;
    },
  };
}

/**
 * Where an app's AuthManager finds that app's table: the class is made per app (core/auth-manager.ts), so its
 * prototype is the per-app place the static `overrides` below can reach.
 */
const holder = Symbol('pbac table');
type Holder = ReturnType<typeof createTableHolder>;
const tableOf = (manager: unknown) => (manager as Record<symbol, Holder>)[holder].current();

export default {
  name: 'pbac',
  settings: textSettings({ AEH_PBAC_REFRESH_MS: 'How often each instance looks for a newer PBAC table (milliseconds, default 2000)' }),
  setup(host) {
    const refreshMs = Number(asText(host.settings).AEH_PBAC_REFRESH_MS ?? 2000);
    if (!Number.isInteger(refreshMs) || refreshMs < 0 || refreshMs > 3_600_000) throw new Error('AEH_PBAC_REFRESH_MS must be a whole number of milliseconds up to an hour');
    const table = createTableHolder(refreshMs);
    (host.AuthManager.prototype as unknown as Record<symbol, unknown>)[holder] = table;
    host.onStart((services) => table.start(services));
    registerPbacRoutes(host, table.apply);
  },
  overrides: {
    AuthManager: {
      // The role table is data now: the stored one, not the contract's constant.
      permissionsOfRole(this: OverrideThis<AuthManagerInstance>, role: string): readonly string[] | undefined {
        const { roles } = tableOf(this);
        const name = role.trim().toLowerCase();
        return Object.hasOwn(roles, name) ? roles[name] : undefined;
      },
      // Groups in the configured claim grant the roles the stored mappings give them, besides the built-in mapping.
      permissionsFromClaims(this: OverrideThis<AuthManagerInstance>, claims: Record<string, unknown>): string[] {
        const granted = new Set(this.__super__.permissionsFromClaims(claims));
        const { claims: mapping } = tableOf(this);
        for (const group of groupsOf(claims, mapping.groups_claim)) {
          const role = Object.hasOwn(mapping.groups, group.toLowerCase()) ? mapping.groups[group.toLowerCase()] : undefined;
          for (const node of (role && this.permissionsOfRole(role)) || []) granted.add(node);
        }
        return [...granted];
      },
    },
  },
} satisfies Plugin;
