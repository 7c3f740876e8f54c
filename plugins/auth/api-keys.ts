/**
 * Scoped API keys (the spec's SUPERVISOR "identity management"): `aeh_k_…` credentials, in `X-API-Key`,
 * `X-AES-API-KEY`, `Authorization: Bearer` or `?apiKey=` like the static key, each holding the roles and
 * permissions it was created with. Records live in the shared store and are read on every use, so a revoked or
 * expired key stops working at once on every instance. The principal is `api-key|<name>`, which is how the audit
 * log and the rate limits name it. `DASHBOARD_API_KEY` stays the bootstrap credential.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { AuthProvider, Principal } from '../../core/auth-manager.ts';
import type { Services } from '../../core/services.ts';
import { Problem } from '../../core/problems.ts';
import { hmacKey, KEY_PREFIX, parseToken, recordKey, secretMatches, usageKey, type ApiKeyRecord } from './api-key-store.ts';
import { grantsOf } from './api-key-grants.ts';
import { registerKeyRoutes } from './api-key-routes.ts';

/** `last_used_at` is written at most this often per key and instance: a use must not cost a write. */
const LAST_USED_EVERY_MS = 60_000;

const refused = (detail: string) => new Problem('unauthorized', { detail });

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
      if (record.revoked_at) throw refused(`the API key "${record.name}" was revoked`);
      if (record.expires_at && Date.parse(record.expires_at) <= services.now()) throw refused(`the API key "${record.name}" expired`);
      noteUse(services, record);
      return { id: `api-key|${record.name}`, provider: 'api-key', permissions: grantsOf(manager, record) };
    },
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
