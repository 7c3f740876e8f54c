/**
 * Scoped API keys (the spec's SUPERVISOR "identity management"): `aeh_k_…` credentials, in `X-API-Key`,
 * `X-AES-API-KEY`, `Authorization: Bearer` or `?apiKey=` like the static key, each holding the roles and
 * permissions it was created with. Records live in the shared store and are read on every use, so a revoked or
 * expired key stops working at once on every instance. The principal is `api-key|<name>#<key id>`: the name
 * for people reading the audit log, the key's random id so that a later key reusing a revoked key's name is
 * another principal (issue 25 item 10). `DASHBOARD_API_KEY` stays the bootstrap credential.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { AuthManagerInstance, AuthProvider, CurrentPrincipal, Principal, StoredPrincipal } from '../../core/auth-manager.ts';
import type { Services } from '../../core/services.ts';
import { Problem } from '../../core/problems.ts';
import { hmacKey, KEY_PREFIX, nameKey, parseToken, recordKey, secretMatches, usageKey, type ApiKeyRecord } from './api-key-store.ts';
import { grantsOf } from './api-key-grants.ts';
import { registerKeyRoutes } from './api-key-routes.ts';

/** `last_used_at` is written at most this often per key and instance: a use must not cost a write. */
const LAST_USED_EVERY_MS = 60_000;

const refused = (detail: string) => new Problem('unauthorized', { detail });

/** A key's principal id: its name to read, its id to be unique for good. */
const principalIdOf = (record: Pick<ApiKeyRecord, 'id' | 'name'>) => `api-key|${record.name}#${record.id}`;
const PRINCIPAL_ID = /^api-key\|([A-Za-z0-9][A-Za-z0-9._-]{0,63})(?:#([a-z0-9]{16}))?$/;

/** The principal of a live key, with the id records of earlier versions named it by. */
function principalOf(manager: Pick<AuthManagerInstance, 'permissionsOfRole'>, record: ApiKeyRecord): Principal {
  return { id: principalIdOf(record), provider: 'api-key', permissions: grantsOf(manager, record), formerId: { id: `api-key|${record.name}`, since: record.created_at } };
}

/** Why a stored key may not be used now, or `null`. */
function unusable(record: ApiKeyRecord, now: number): string | null {
  if (record.revoked_at) return `the API key "${record.name}" was revoked`;
  if (record.expires_at && Date.parse(record.expires_at) <= now) return `the API key "${record.name}" expired`;
  return null;
}

/**
 * Who a key that asked for work at `since` is now (issue 25 items 3 and 10). An id of earlier versions names
 * only the key's name: the live key of that name made it only if that key is older than the work.
 */
async function currentKey(services: Services, stored: StoredPrincipal, manager: AuthManagerInstance, since: string): Promise<CurrentPrincipal> {
  const match = PRINCIPAL_ID.exec(stored.id);
  if (!match) return { refused: `${stored.id.slice(0, 100)} is not an API key's principal` };
  const keyId = match[2] ?? (await services.store.getJson<{ id: string }>(nameKey(match[1])))?.id;
  const record = keyId ? await services.store.getJson<ApiKeyRecord>(recordKey(keyId)) : null;
  if (!record) return { refused: `the API key "${match[1]}" was revoked or no longer exists` };
  if (!match[2] && Date.parse(record.created_at) > Date.parse(since)) return { refused: `the API key "${match[1]}" that asked for it was revoked; the live key of that name is another, newer key` };
  const reason = unusable(record, services.now());
  return reason ? { refused: reason } : { principal: principalOf(manager, record) };
}

function createProvider(started: () => Services): AuthProvider {
  let key: Promise<Uint8Array> | undefined;
  const lastWritten = new Map<string, number>();
  const noteUse = (services: Services, record: ApiKeyRecord) => {
    const now = services.now();
    if (now - (lastWritten.get(record.id) ?? -Infinity) < LAST_USED_EVERY_MS) return;
    lastWritten.set(record.id, now);
    // A key of its own: rewriting the record could put back a revocation made meanwhile on another instance.
    void services.store.setJson(usageKey(record.id), { last_used_at: new Date(now).toISOString() }).catch(() => undefined);
  };
  return {
    name: 'api-key',
    async authenticate(credential, manager): Promise<Principal | null> {
      if (!credential.value.startsWith(KEY_PREFIX)) return null;
      const parsed = parseToken(credential.value);
      if (!parsed) throw refused('the API key is malformed');
      const services = started();
      const record = await services.store.getJson<ApiKeyRecord>(recordKey(parsed.id));
      // One answer for an unknown id and a wrong secret: which ids exist is not told.
      if (!record || !secretMatches(record, await (key ??= hmacKey(services.store)), parsed.secret)) throw refused('the API key is not valid');
      const reason = unusable(record, services.now());
      if (reason) throw refused(reason);
      noteUse(services, record);
      return principalOf(manager, record);
    },
    current: (stored, manager, since) => currentKey(started(), stored, manager, since),
  };
}

export default {
  name: 'auth-api-keys',
  setup(host) {
    let services: Services | undefined;
    host.onStart((started) => {
      services = started;
    });
    host.authProviders.register(createProvider(() => {
      if (!services) throw new Problem('unavailable', { detail: 'the service is starting' });
      return services;
    }));
    registerKeyRoutes(host);
  },
} satisfies Plugin;
