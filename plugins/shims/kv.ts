/**
 * `kv`: a versioned key-value / configuration store (feature flags, limits, settings). Writes may carry the
 * version they expect (optimistic concurrency: a stale version is a `conflict`); keys under a protected prefix
 * are read-only for the agent (`permission_denied`).
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';

interface Entry {
  [key: string]: Json;
  value: Json;
  version: number;
}

export interface KvState {
  [key: string]: Json;
  entries: { [key: string]: Entry };
  /** Key prefixes the agent may read but never change. */
  protected: string[];
}

const KEY = { type: 'string', minLength: 1, maxLength: 200 };

function isProtected(state: KvState, key: string): boolean {
  return state.protected.some((prefix) => key.startsWith(prefix));
}

export default defineShim<KvState>({
  name: 'kv',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A versioned key-value configuration store: get, set with optimistic concurrency, delete, list by prefix.',
  initialStateSchema: {
    type: 'object',
    properties: { entries: { type: 'object' }, protected: { type: 'array', items: { type: 'string' } } },
    additionalProperties: false,
  },
  actions: [
    { name: 'get', description: 'Read a key: its value and version.', readOnly: true, parameters: { type: 'object', required: ['key'], properties: { key: KEY }, additionalProperties: false } },
    {
      name: 'set',
      description: 'Write a key. Pass expected_version to refuse the write when someone changed the key since you read it.',
      parameters: { type: 'object', required: ['key', 'value'], properties: { key: KEY, value: {}, expected_version: { type: 'integer', minimum: 0 } }, additionalProperties: false },
    },
    { name: 'delete', description: 'Remove a key.', parameters: { type: 'object', required: ['key'], properties: { key: KEY, expected_version: { type: 'integer', minimum: 0 } }, additionalProperties: false } },
    { name: 'list', description: 'Keys that start with a prefix, sorted.', readOnly: true, parameters: { type: 'object', properties: { prefix: { type: 'string', maxLength: 200 } }, additionalProperties: false } },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { entries?: Record<string, Json>; protected?: string[] };
    const entries: Record<string, Entry> = {};
    for (const [key, value] of Object.entries(given.entries ?? {})) entries[key] = { value, version: 1 };
    return { entries, protected: given.protected ?? [] };
  },
  call(action, params, state): ShimOutcome<KvState> {
    const key = params.key as string;
    // Own keys only: a key named "__proto__" or "constructor" must not find Object.prototype.
    const entry = typeof key === 'string' && Object.hasOwn(state.entries, key) ? state.entries[key] : undefined;
    switch (action) {
      case 'get':
        return entry ? { result: { key, value: entry.value, version: entry.version }, state } : shimError(state, 'not_found', `no key "${key}"`);
      case 'list': {
        const prefix = (params.prefix as string | undefined) ?? '';
        return { result: { keys: Object.keys(state.entries).filter((name) => name.startsWith(prefix)).sort() }, state };
      }
      case 'set':
      case 'delete': {
        if (isProtected(state, key)) return shimError(state, 'permission_denied', `"${key}" is protected configuration; it cannot be changed here`);
        const expected = params.expected_version as number | undefined;
        const current = entry?.version ?? 0;
        if (expected !== undefined && expected !== current) return shimError(state, 'conflict', `"${key}" is at version ${current}, not ${expected}: read it again`);
        if (action === 'delete') {
          if (!entry) return shimError(state, 'not_found', `no key "${key}"`);
          const { [key]: _removed, ...rest } = state.entries;
          return { result: { key, deleted: true }, state: { ...state, entries: rest } };
        }
        const next: Entry = { value: params.value as Json, version: current + 1 };
        return { result: { key, version: next.version }, state: { ...state, entries: { ...state.entries, [key]: next } } };
      }
      default:
        return shimError(state, 'invalid', `unknown action "${action}"`);
    }
  },
});
