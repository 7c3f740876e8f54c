/**
 * The doctor's own checks: API key, storage, plugins, catalog, LLM provider, jail root and free disk.
 * Signers and the OIDC key set contribute their checks from their own plugins.
 */
import type { DoctorCheck } from '../../core/services.ts';
import { MIN_API_KEY_LENGTH } from '../../core/config.ts';

/** Distinct characters over length: a rough guard against keys like "aaaa…" or "1234…". */
function looksRandom(key: string): boolean {
  const distinct = new Set(key).size;
  return distinct >= Math.min(12, Math.floor(key.length / 3));
}

export const apiKeyCheck: DoctorCheck = {
  id: 'api_key',
  async run({ config }) {
    const key = config.apiKey;
    if (!key) return { status: 'fail', message: 'no DASHBOARD_API_KEY is configured', hint: 'set DASHBOARD_API_KEY (openssl rand -hex 32) or let the first start generate one' };
    if (key.length < MIN_API_KEY_LENGTH) return { status: 'fail', message: `the API key has ${key.length} characters`, hint: 'use 64 hex characters: openssl rand -hex 32' };
    if (!/^[0-9a-f]{64}$/i.test(key)) return { status: 'warn', message: 'the API key is not 64 hex characters (32 random bytes)', hint: 'generate one with: openssl rand -hex 32' };
    if (!looksRandom(key)) return { status: 'warn', message: 'the API key has very few distinct characters', hint: 'generate one with: openssl rand -hex 32' };
    return { status: 'ok', message: 'a strong API key is configured' };
  },
};

export const storageCheck: DoctorCheck = {
  id: 'storage',
  async run({ store, now }) {
    const key = `doctor/probe-${crypto.randomUUID()}.json`;
    const written = { at: now(), nonce: crypto.randomUUID() };
    try {
      await store.setJson(key, written);
      const read = await store.getJson<typeof written>(key);
      await store.remove(key);
      if (!read || read.nonce !== written.nonce) return { status: 'fail', message: `storage (${store.driver}) did not return what was written`, hint: 'check the storage backend for replication lag or a read-only mount' };
      return { status: 'ok', message: `storage (${store.driver}) is reachable and writable`, details: { driver: store.driver } };
    } catch (error) {
      return { status: 'fail', message: `storage (${store.driver}) failed a write and read-back: ${(error as Error).message}`, hint: 'check AEH_STORAGE / AEH_DATA_DIR permissions, or that the Redis server is reachable' };
    }
  },
};

export const pluginsCheck: DoctorCheck = {
  id: 'plugins',
  async run({ plugins, metrics, agents, mutators, signers }) {
    const user = plugins.filter((plugin) => plugin.source === 'user').map((plugin) => plugin.name);
    const message = `${plugins.length} plugins loaded (${user.length ? `user: ${user.join(', ')}` : 'no user plugins'}); ${metrics.names().length} metrics, ${agents.names().length} agent adapters, ${mutators.names().length} mutators, ${signers.names().length} signers`;
    if (agents.names().length === 0 || metrics.names().length === 0) return { status: 'fail', message, hint: 'a bundled plugin is missing: reinstall or check AEH_PLUGINS' };
    return { status: 'ok', message, details: { plugins } };
  },
};

export const llmCheck: DoctorCheck = {
  id: 'llm_provider',
  async run(services) {
    const llm = services.find('llm');
    if (!llm) return { status: 'warn', message: 'no language-model provider configured: spec-to-eval fallback, llm_judge and LLM mutators are unavailable', hint: 'set AEH_LLM_BASE_URL, AEH_LLM_MODEL and AEH_LLM_API_KEY for an OpenAI-compatible endpoint' };
    return { status: 'ok', message: `language-model provider configured (${llm.model} at ${new URL(services.config.llm.baseUrl!).host})` };
  },
};

export const jailCheck: DoctorCheck = {
  id: 'jail_root',
  async run({ config, capabilities }) {
    const files = capabilities.files;
    if (!files) return { status: 'ok', message: `this runtime (${capabilities.runtime.name}) has no file system: path-based requests answer 501` };
    try {
      await files.realpath(config.projectRoot);
      return { status: 'ok', message: `PROJECT_ROOT ${config.projectRoot} exists${config.strictJail ? ' (strict jail: temp directories refused)' : ''}` };
    } catch {
      return { status: 'fail', message: `PROJECT_ROOT ${config.projectRoot} does not exist`, hint: 'set PROJECT_ROOT to an existing directory' };
    }
  },
};

const GIB = 1024 ** 3;

export const diskCheck: DoctorCheck = {
  id: 'disk_space',
  async run({ store }) {
    const free = await store.freeBytes().catch(() => null);
    if (free === null) return { status: 'ok', message: `free space is not measurable for the ${store.driver} store` };
    const human = `${(free / GIB).toFixed(1)} GiB`;
    if (free < 0.5 * GIB) return { status: 'fail', message: `only ${human} free in the data directory`, hint: 'free disk space or move AEH_DATA_DIR; traces and certificates need room', details: { free_bytes: free } };
    if (free < 2 * GIB) return { status: 'warn', message: `${human} free in the data directory`, hint: 'plan for more space: every run keeps its trace', details: { free_bytes: free } };
    return { status: 'ok', message: `${human} free in the data directory`, details: { free_bytes: free } };
  },
};

export const builtinChecks: DoctorCheck[] = [apiKeyCheck, storageCheck, pluginsCheck, llmCheck, jailCheck, diskCheck];
