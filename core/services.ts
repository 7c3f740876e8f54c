/**
 * Services: what a running app hands to route handlers, hooks and jobs. Everything a plugin may reach at run
 * time is here; plugins never import each other.
 */
import type { Config } from './config.ts';
import type { Store } from './storage.ts';
import type { GuardedFetch, Logger, RuntimeCapabilities } from './capabilities.ts';
import type { Registry } from './registry.ts';
import type { Metric } from './metric.ts';
import type { Mutator } from './mutator.ts';
import type { Shim } from './shim.ts';
import type { AgentAdapter } from './agent-adapter.ts';
import type { Signer } from './signer.ts';
import type { ScheduledJob } from './jobs.ts';
import type { AuthManagerInstance, Principal } from './auth-manager.ts';
import type { Hooks } from './hooks.ts';
import type { LlmClient } from './llm.ts';
import type { DoctorCheck } from './doctor.ts';
import type { Telemetry } from './telemetry.ts';
import type { Catalog } from '../plugins/catalog/catalog.ts';

/** One loaded plugin, as `GET /api/info` and the doctor report it. */
export interface PluginInfo {
  name: string;
  version?: string;
  source: 'bundled' | 'user';
}

export interface Services {
  config: Config;
  store: Store;
  logger: Logger;
  capabilities: RuntimeCapabilities;
  metrics: Registry<Metric>;
  shims: Registry<Shim>;
  mutators: Registry<Mutator>;
  agents: Registry<AgentAdapter>;
  signers: Registry<Signer>;
  jobs: Registry<ScheduledJob>;
  doctorChecks: Registry<DoctorCheck>;
  auth: AuthManagerInstance;
  hooks: Hooks;
  /** Outbound fetch for URLs that come from a request or a scenario: through the SSRF guard. */
  fetch: GuardedFetch;
  /** Fetch for URLs the operator configured (JWKS, LLM provider, key services): trusted, not guarded. */
  trustedFetch: typeof fetch;
  /** The configured LLM provider, if any. */
  llm?: LlmClient;
  /** The scenario catalog (bundled and mounted folders). */
  catalog: Catalog;
  plugins: PluginInfo[];
  telemetry: Telemetry;
  /**
   * Sends a request to this same app in-process (no socket), for plugins that build on the public API
   * (the console renders from it, so it shows exactly what the API answers).
   */
  dispatch(request: Request): Promise<Response>;
  /**
   * Like `dispatch`, but the request runs as `principal` instead of authenticating its headers: for work done
   * on someone's behalf (a schedule firing as its creator), so that permissions, quotas, rate limits and the
   * audit trail all see the real principal. In-process only; nothing that arrives over the network can do this.
   */
  dispatchAs(request: Request, principal: Principal): Promise<Response>;
  /** Milliseconds since the epoch when the app was created. */
  startedAt: number;
  now(): number;
}
