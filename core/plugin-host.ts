/**
 * The plugin host: what a plugin's `setup(host)` sees. It holds one typed registry per extension point and
 * the AuthManager class that plugins may extend. After start every registry is frozen.
 */
import type { Config } from './config.ts';
import type { RuntimeCapabilities } from './capabilities.ts';
import { createRegistry, type Registry } from './registry.ts';
import type { Metric } from './metric.ts';
import type { Mutator } from './mutator.ts';
import type { Attack } from './attack.ts';
import type { Shim } from './shim.ts';
import type { AgentAdapter } from './agent-adapter.ts';
import type { Signer } from './signer.ts';
import type { StorageDriver } from './storage.ts';
import type { RouteDefinition } from './routes.ts';
import { createAuthManagerClass, type AuthManagerClass, type AuthProvider } from './auth-manager.ts';
import type { HookEvents } from './hooks.ts';
import type { DoctorCheck, HookHandler, ScheduledJob, ServiceSlots, Services, SlotName } from './services.ts';
import type { ScenarioFormat } from './domain/scenario-format.ts';
import type { FailureCode } from './failure-codes.ts';
import type { Settings } from './plugin-settings.ts';
import type { JsonSchema } from './validate.ts';
import type { TaskQueueFactory } from './tasks.ts';

/** A JSON Schema published in the OpenAPI document under its name. */
export interface NamedSchema {
  name: string;
  schema: JsonSchema;
}

export type StartHook = (services: Services) => void | Promise<void>;

/** Builds the service a plugin provides in a slot, once storage is open and before start hooks run. */
export type SlotFactory<S extends SlotName> = (services: Services) => ServiceSlots[S] | Promise<ServiceSlots[S]>;

/** A slot a plugin provides: its name and its factory. */
export interface SlotProvider {
  slot: SlotName;
  create: SlotFactory<SlotName>;
}

export interface PluginHost {
  readonly config: Config;
  readonly capabilities: RuntimeCapabilities;
  readonly metrics: Registry<Metric>;
  readonly mutators: Registry<Mutator>;
  /** Attacks that render the text planted in a scenario's injection vectors (core/attack.ts). */
  readonly attacks: Registry<Attack>;
  /** World shims: stateful simulators an agent reaches as tools (core/shim.ts). */
  readonly shims: Registry<Shim>;
  readonly agents: Registry<AgentAdapter>;
  readonly signers: Registry<Signer>;
  readonly storageDrivers: Registry<StorageDriver>;
  readonly jobs: Registry<ScheduledJob>;
  readonly doctorChecks: Registry<DoctorCheck>;
  readonly routes: Registry<RouteDefinition>;
  readonly authProviders: Registry<AuthProvider>;
  /** Named JSON Schemas published under `components.schemas` of the OpenAPI document. */
  readonly schemas: Registry<NamedSchema>;
  /** Task queues other than the in-process one; the first that accepts the configuration is used. */
  readonly queues: Registry<TaskQueueFactory>;
  /** Document formats accepted as scenarios besides the native one (core/domain/scenario-format.ts). */
  readonly scenarioFormats: Registry<ScenarioFormat>;
  /** Failure codes metrics and the engine report: the taxonomy (core/failure-codes.ts). */
  readonly failureCodes: Registry<FailureCode>;
  /** This plugin's settings, read and checked against its `settings` schema (empty without one). */
  readonly settings: Settings;
  /** Services this app's plugins provide to each other, by slot (`provide`). */
  readonly providers: Registry<SlotProvider>;
  /**
   * Provides the service of a named slot to the other plugins (`services.use(slot)`); the factory runs once
   * storage is open, before start hooks, in plugin order. Two plugins providing one slot fail the start.
   */
  provide<S extends SlotName>(slot: S, factory: SlotFactory<S>, owner?: string): void;
  /** The AuthManager class of this app; extend it with pluggable `overrides: { AuthManager: {...} }`. */
  AuthManager: AuthManagerClass;
  /** Subscribes to a lifecycle event. */
  on<E extends keyof HookEvents>(event: E, handler: HookHandler<E>): void;
  /** Runs once the store is open, before the first request is served. */
  onStart(hook: StartHook): void;
  /**
   * Runs after every plugin's start hooks, before the first request is served: for work that needs the whole
   * service started whatever the plugins' order (resuming what a stopped instance left). Failing fails the start.
   */
  onReady(hook: StartHook): void;
  /** Runs at shutdown, in reverse order. */
  onStop(hook: StartHook): void;
}

/** Internal view of the host used by `app.ts`. */
export interface HostInternals extends PluginHost {
  readonly startHooks: StartHook[];
  readonly readyHooks: StartHook[];
  readonly stopHooks: StartHook[];
  readonly hookHandlers: Map<keyof HookEvents, HookHandler<keyof HookEvents>[]>;
  freeze(): void;
}

/** Creates an empty host for one app. */
export function createHost(config: Config, capabilities: RuntimeCapabilities): HostInternals {
  const startHooks: StartHook[] = [];
  const readyHooks: StartHook[] = [];
  const stopHooks: StartHook[] = [];
  const hookHandlers = new Map<keyof HookEvents, HookHandler<keyof HookEvents>[]>();
  let frozen = false;
  const guard = (what: string) => {
    if (frozen) throw new Error(`cannot add ${what} after the service started`);
  };
  const registries = {
    metrics: createRegistry<Metric>('metric', (metric) => metric.id),
    mutators: createRegistry<Mutator>('mutator', (mutator) => mutator.type),
    attacks: createRegistry<Attack>('attack', (attack) => attack.name),
    shims: createRegistry<Shim>('shim', (shim) => shim.name),
    agents: createRegistry<AgentAdapter>('agent adapter', (adapter) => adapter.name),
    signers: createRegistry<Signer>('signer', (signer) => signer.name),
    storageDrivers: createRegistry<StorageDriver>('storage driver', (driver) => driver.name),
    jobs: createRegistry<ScheduledJob>('scheduled job', (job) => job.name),
    doctorChecks: createRegistry<DoctorCheck>('doctor check', (check) => check.id),
    routes: createRegistry<RouteDefinition>('route', (route) => `${route.method} ${route.path}`),
    authProviders: createRegistry<AuthProvider>('auth provider', (provider) => provider.name),
    schemas: createRegistry<NamedSchema>('schema', (named) => named.name),
    queues: createRegistry<TaskQueueFactory>('task queue', (factory) => factory.name),
    scenarioFormats: createRegistry<ScenarioFormat>('scenario format', (format) => format.name),
    providers: createRegistry<SlotProvider>('service slot', (provider) => provider.slot),
    failureCodes: createRegistry<FailureCode>('failure code', (entry) => entry.code),
  };
  // A metric's own failure codes are declared with it.
  const registerMetric = registries.metrics.register;
  registries.metrics.register = (metric, owner) => {
    registerMetric(metric, owner);
    for (const entry of metric.failureCodes ?? []) registries.failureCodes.register(entry, owner);
    return metric;
  };
  return {
    config,
    capabilities,
    settings: Object.freeze({}),
    ...registries,
    AuthManager: createAuthManagerClass(),
    provide(slot, factory, owner) {
      registries.providers.register({ slot, create: factory as SlotFactory<SlotName> }, owner);
    },
    on(event, handler) {
      guard(`a ${event} handler`);
      const list = hookHandlers.get(event) ?? [];
      list.push(handler as HookHandler<keyof HookEvents>);
      hookHandlers.set(event, list);
    },
    onStart(hook) {
      guard('a start hook');
      startHooks.push(hook);
    },
    onReady(hook) {
      guard('a ready hook');
      readyHooks.push(hook);
    },
    onStop(hook) {
      guard('a stop hook');
      stopHooks.push(hook);
    },
    startHooks,
    readyHooks,
    stopHooks,
    hookHandlers,
    freeze() {
      frozen = true;
      for (const registry of Object.values(registries)) registry.freeze();
    },
  };
}
