/**
 * Services: what a running app hands to route handlers, hooks, jobs and doctor checks (what `setup` sees is the
 * plugin host, core/plugin-host.ts). Everything a plugin may reach at run time is here; plugins never import
 * each other. What one plugin offers the others (the catalog, the language-model client) sits in a named slot:
 * the plugin calls `host.provide(slot, factory)`, the others `services.use(slot)` or `services.find(slot)`.
 */
import type { Config } from './config.ts';
import type { Store } from './storage.ts';
import type { GuardedFetch, Logger, RuntimeCapabilities } from './capabilities.ts';
import type { Registry } from './registry.ts';
import type { Metric } from './metric.ts';
import type { Mutator } from './mutator.ts';
import type { Attack } from './attack.ts';
import type { Shim } from './shim.ts';
import type { AgentAdapter } from './agent-adapter.ts';
import type { Signer } from './signer.ts';
import type { AuthManagerInstance, Principal } from './auth-manager.ts';
import type { HookEvents } from './hooks.ts';
import type { LlmClient } from './llm.ts';
import type { Telemetry } from './telemetry.ts';
import type { Catalog } from './domain/catalog.ts';
import type { ScenarioFormat } from './domain/scenario-format.ts';
import type { FailureCode } from './failure-codes.ts';
import type { Redactor } from './redactor.ts';
import type { AgentTargets } from './domain/agent-target.ts';

/**
 * The named services plugins provide to each other. A plugin that provides a slot of its own declares it by
 * augmenting this interface: `declare module 'agent-eval-harness/plugin' { interface ServiceSlots { crm: Crm } }`.
 */
export interface ServiceSlots {
  /** The scenario catalog (plugins/catalog). */
  catalog: Catalog;
  /** The operator's language-model provider (plugins/llm), present only when `AEH_LLM_*` configure one. */
  llm: LlmClient;
  /** The consolidated health of the doctor's checks (plugins/doctor), for `GET /api/info`. */
  health: HealthMonitor;
  /** The redaction of every excerpt that leaves the service (plugins/metrics, which owns the detectors). */
  redactor: Redactor;
  /**
   * The named agents of the agent registry (plugins/agent-registry), which `POST /api/evaluate` resolves
   * `"agent": "<name>"` through. Not `services.agents`: that is the registry of agent adapters.
   */
  agentTargets: AgentTargets;
}

/** The doctor's last findings: the worst status and each check's (`unknown` before the first run ends). */
export interface HealthSummary {
  status: CheckStatus | 'unknown';
  /** When the checks last finished. */
  checked_at?: string;
  checks: Record<string, CheckStatus>;
}

export interface HealthMonitor {
  /** The last findings, at once; starts a new run in the background when they are stale. */
  current(): HealthSummary;
  /** Runs the checks now (at most one run at a time). */
  refresh(): Promise<void>;
}

export type SlotName = keyof ServiceSlots;

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
  /** Attacks that render the text planted in injection vectors (core/attack.ts). */
  attacks: Registry<Attack>;
  agents: Registry<AgentAdapter>;
  signers: Registry<Signer>;
  /** Formats a submitted or catalog document may be in besides the native scenario (AES v1.4, ...). */
  scenarioFormats: Registry<ScenarioFormat>;
  /** The failure taxonomy: every code a loaded plugin declares. */
  failureCodes: Registry<FailureCode>;
  jobs: Registry<ScheduledJob>;
  doctorChecks: Registry<DoctorCheck>;
  auth: AuthManagerInstance;
  hooks: Hooks;
  /** Outbound fetch for URLs that come from a request or a scenario: through the SSRF guard. */
  fetch: GuardedFetch;
  /** Fetch for URLs the operator configured (JWKS, LLM provider, key services): trusted, not guarded. */
  trustedFetch: typeof fetch;
  /** The service in `slot`; throws naming the slot when no loaded plugin provides it (declare the dependency). */
  use<S extends SlotName>(slot: S): ServiceSlots[S];
  /** The service in `slot`, or `undefined` when no loaded plugin provides it (an optional service). */
  find<S extends SlotName>(slot: S): ServiceSlots[S] | undefined;
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

/** Reacts to a lifecycle event (`host.on`); a handler that throws is logged and never fails the event. */
export type HookHandler<E extends keyof HookEvents> = (payload: HookEvents[E], services: Services) => void | Promise<void>;

export interface Hooks {
  on<E extends keyof HookEvents>(event: E, handler: HookHandler<E>): void;
  emit<E extends keyof HookEvents>(event: E, payload: HookEvents[E]): Promise<void>;
}

/** A job fired on a cron pattern (core/scheduler.ts). */
export interface ScheduledJob {
  name: string;
  /** A cron pattern (croner syntax). */
  cron: string;
  /**
   * Runs on every instance (it refreshes something each instance keeps, like a key-set cache) instead of on
   * the one instance that claims the firing in the shared store.
   */
  perInstance?: boolean;
  run(services: Services): Promise<void>;
}

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  id: string;
  status: CheckStatus;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

/** A check `GET /api/v1/doctor` runs (core/doctor.ts). */
export interface DoctorCheck {
  id: string;
  run(services: Services): Promise<Omit<CheckResult, 'id'>>;
  /**
   * The same judgement without outbound calls (no key-set reload, no cloud key service round trip), from what the
   * plugin already knows: what the consolidated health of `GET /api/info` runs. Without it, `run` is used.
   */
  quick?(services: Services): Promise<Omit<CheckResult, 'id'>>;
}
