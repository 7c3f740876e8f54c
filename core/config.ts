/**
 * Service configuration (api-contract.md, "Start-up and configuration").
 * The core never reads the environment: a runtime entry passes a plain record and `parseConfig` turns it into
 * a typed, validated `Config`, failing the start with a message that names the variable and the fix.
 */

import { parseReferencePolicy } from './domain/policy-strength.ts';
import type { VerdictPolicyInput } from './domain/verdict-policy.ts';

export interface Config {
  host: string;
  port: number;
  /** Static API key; `undefined` only in the instant before the runtime generates one. */
  apiKey?: string;
  projectRoot: string;
  strictJail: boolean;
  /** `fs`, `memory`, `cloudflare-kv` (a KV namespace binding, workerd) or a `redis://` URL. */
  storage: string;
  dataDir: string;
  allowHosts: string[];
  oidc: { jwksUrl?: string; issuer?: string; audience?: string; cacheTtlSeconds: number };
  llm: { baseUrl?: string; apiKey?: string; model?: string };
  maxBodyBytes: number;
  catalogDirs: string[];
  concurrency: number;
  /** `apiKey` query parameter accepted (spec) unless an operator turns it off (`AEH_ALLOW_QUERY_KEY=0`). */
  allowQueryKey: boolean;
  /** Days before a certificate expires (`AEH_GOVERNANCE_TTL_DAYS`). */
  governanceTtlDays: number;
  /** Extra plugin modules (`AEH_PLUGINS`, comma list of paths or package names). */
  plugins: string[];
  /** Requests per minute per principal on protected routes, per client address on public ones. */
  rateLimit: { protectedPerMinute: number; publicPerMinute: number; authFailuresPerMinute: number };
  /**
   * Limits per principal, so that one caller cannot hold the service for everyone (issue 13 item 7, issue 25
   * item 12): evaluations and units queued or running at once, bytes its runs stored, schedules kept, and the
   * longest per-call agent timeout accepted.
   */
  quotas: { queuedRunsPerPrincipal: number; queuedUnitsPerPrincipal: number; storedBytesPerPrincipal: number; schedulesPerPrincipal: number; maxAgentTimeoutMs: number };
  /** The signer that signs certificates (`AEH_SIGNER`); unset: a cloud key service when one is configured, else `local`. */
  signer?: string;
  /** The header a trusted reverse proxy puts the client address in (`AEH_CLIENT_IP_HEADER`), lower case. */
  clientIpHeader?: string;
  /** The shims scenarios may enable (`AEH_ENABLED_SHIMS`); `undefined`: every registered shim. */
  enabledShims?: string[];
  /** The most tasks of one `conversation: "per_task"` run in flight (`AEH_RUN_CONCURRENCY`). */
  runConcurrency: number;
  /** What one shim call run in the worker pool may take, in milliseconds (`AEH_SHIM_BUDGET_MS`). */
  shimBudgetMs: number;
  /** The most shim calls of one run in the worker pool at once (`AEH_RUN_SHIM_CALLS`); 0: half the pool, at least 1. */
  runShimCalls: number;
  /**
   * The weakest verdict policy a run may apply (`AEH_VERDICT_FLOOR`: `default`, or a JSON policy whose fields are
   * each a floor) unless its submitter holds `verdict:relax`; `undefined`: no floor.
   */
  verdictFloor?: VerdictPolicyInput;
}

/** Raised when the environment cannot start the service; the message says what to change. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The shortest static key accepted (the spec recommends 64 hex characters). */
export const MIN_API_KEY_LENGTH = 32;

function integer(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() would also take "0x50" and "1e3".
  const value = /^\d{1,16}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((item) => item.trim()).filter(Boolean);
}

function joinPath(root: string, child: string): string {
  return root.endsWith('/') ? root + child : `${root}/${child}`;
}

/** The form of an `AEH_STORAGE` value: a driver name, or a scheme and a location, without spaces. */
const STORAGE_VALUE = /^[A-Za-z][A-Za-z0-9+.-]*(?::\S*)?$/;

/**
 * Builds the configuration from an environment record.
 * @param env variables as the runtime read them (process environment merged over `.env`)
 * @param cwd the working directory, the default `PROJECT_ROOT`
 */
export function parseConfig(env: Record<string, string | undefined>, cwd = '/'): Config {
  const apiKey = env.DASHBOARD_API_KEY?.trim() || undefined;
  if (apiKey !== undefined && apiKey.length < MIN_API_KEY_LENGTH) {
    throw new ConfigError(
      `DASHBOARD_API_KEY is ${apiKey.length} characters; at least ${MIN_API_KEY_LENGTH} are required. ` +
        'Use 32 random bytes as 64 hex characters (for example: openssl rand -hex 32), or remove it to have one generated.',
    );
  }
  const projectRoot = env.PROJECT_ROOT?.trim() || cwd;
  const storage = env.AEH_STORAGE?.trim() || 'fs';
  // Which storage a value names is for the storage driver plugins to say (the kernel refuses at start a value no
  // loaded driver accepts); here only its form: a name, or a scheme and a location (`redis://…`, `snapshot:…`).
  if (!STORAGE_VALUE.test(storage)) {
    throw new ConfigError(`AEH_STORAGE must be "fs", "memory", "cloudflare-kv" (workerd), a redis:// URL or another scheme:location a storage driver plugin accepts, got "${storage.slice(0, 100)}"`);
  }
  const flag = (name: string, fallback: boolean) => {
    const raw = env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    throw new ConfigError(`${name} must be 1 or 0, got "${env[name]}"`);
  };
  const config: Config = {
    host: env.HOST?.trim() || '127.0.0.1',
    port: integer(env, 'PORT', 8787, 0, 65535),
    apiKey,
    projectRoot,
    strictJail: flag('AEH_STRICT_JAIL', false),
    storage,
    dataDir: env.AEH_DATA_DIR?.trim() || joinPath(projectRoot, '.aeh'),
    allowHosts: list(env.AEH_ALLOW_HOSTS).map((host) => host.toLowerCase()),
    oidc: {
      jwksUrl: env.OIDC_JWKS_URL?.trim() || undefined,
      issuer: env.OIDC_ISSUER?.trim() || undefined,
      audience: env.OIDC_AUDIENCE?.trim() || undefined,
      cacheTtlSeconds: integer(env, 'OIDC_JWKS_CACHE_TTL', 3600, 1),
    },
    llm: {
      baseUrl: env.AEH_LLM_BASE_URL?.trim() || undefined,
      apiKey: env.AEH_LLM_API_KEY?.trim() || undefined,
      model: env.AEH_LLM_MODEL?.trim() || undefined,
    },
    maxBodyBytes: integer(env, 'AEH_MAX_BODY_BYTES', 1_048_576, 1),
    catalogDirs: list(env.AEH_CATALOG_DIRS),
    concurrency: integer(env, 'AEH_CONCURRENCY', 4, 1, 1024),
    allowQueryKey: flag('AEH_ALLOW_QUERY_KEY', true),
    governanceTtlDays: integer(env, 'AEH_GOVERNANCE_TTL_DAYS', 90, 1),
    plugins: list(env.AEH_PLUGINS),
    rateLimit: {
      protectedPerMinute: integer(env, 'AEH_RATE_LIMIT_PER_MINUTE', 6000, 1),
      publicPerMinute: integer(env, 'AEH_PUBLIC_RATE_LIMIT_PER_MINUTE', 600, 1),
      authFailuresPerMinute: integer(env, 'AEH_AUTH_FAILURES_PER_MINUTE', 30, 1),
    },
    enabledShims: env.AEH_ENABLED_SHIMS === undefined || env.AEH_ENABLED_SHIMS.trim() === '' ? undefined : list(env.AEH_ENABLED_SHIMS),
    signer: env.AEH_SIGNER?.trim() || undefined,
    clientIpHeader: env.AEH_CLIENT_IP_HEADER?.trim().toLowerCase() || undefined,
    runConcurrency: integer(env, 'AEH_RUN_CONCURRENCY', 16, 1, 256),
    shimBudgetMs: integer(env, 'AEH_SHIM_BUDGET_MS', 2000, 1, 600_000),
    runShimCalls: integer(env, 'AEH_RUN_SHIM_CALLS', 0, 0, 256),
    ...(env.AEH_VERDICT_FLOOR?.trim() ? { verdictFloor: verdictFloorOf(env.AEH_VERDICT_FLOOR) } : {}),
    quotas: {
      queuedRunsPerPrincipal: integer(env, 'AEH_MAX_QUEUED_PER_PRINCIPAL', 500, 1),
      queuedUnitsPerPrincipal: integer(env, 'AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL', 1_000_000, 1),
      storedBytesPerPrincipal: integer(env, 'AEH_MAX_STORED_BYTES_PER_PRINCIPAL', 10 * 1024 ** 3, 1),
      schedulesPerPrincipal: integer(env, 'AEH_MAX_SCHEDULES_PER_PRINCIPAL', 50, 1),
      maxAgentTimeoutMs: integer(env, 'AEH_MAX_AGENT_TIMEOUT_MS', 300_000, 1, 3_600_000),
    },
  };
  environments.set(config, Object.freeze({ ...env }));
  return config;
}

function verdictFloorOf(raw: string): VerdictPolicyInput {
  try {
    return parseReferencePolicy(raw, 'AEH_VERDICT_FLOOR');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/**
 * The environment a configuration was parsed from, for the kernel only: plugin settings are read from it
 * (core/plugin-settings.ts) and agents get their allowed variables from it. Plugins never see it whole.
 */
const environments = new WeakMap<Config, Readonly<Record<string, string | undefined>>>();

export function configEnvironment(config: Config): Readonly<Record<string, string | undefined>> {
  return environments.get(config) ?? {};
}
