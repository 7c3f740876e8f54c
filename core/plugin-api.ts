/**
 * What a plugin author imports: `agent-eval-harness/plugin` in an installed package (package.json `exports`),
 * this file in the repository. Named re-exports of the kernel's extension points only, so a plugin written
 * against it keeps working when the kernel's files move.
 */
export { definePlugin, type Plugin, type OverrideThis } from './plugin.ts';
export type { PluginHost } from './plugin-host.ts';
export { defineMetric, pass, fail, unmeasured, type Metric, type MetricContext, type MetricResult, type Severity, type MetricCheck, type CheckAnswer } from './metric.ts';
export type { FailureCode } from './failure-codes.ts';
export type { ClaimsMapper, ClaimsMappingTools } from './plugin-overrides.ts';
export type { Settings } from './plugin-settings.ts';
export { defineShim, shimError, type Shim, type ShimOutcome, type Json } from './shim.ts';
export { defineLazyShim, type LazyShimDeclaration } from './domain/lazy-shim.ts';
export { Problem } from './problems.ts';
export { defineAttack, fillTemplate, DEFAULT_MODEL_NAME, DEFAULT_USER_NAME, type Attack, type AttackContext } from './attack.ts';
export { matchCase, type Mutator, type MutatorContext, type ProtectedSpan, type ProtectedKind } from './mutator.ts';
export { AgentError, type AgentAdapter, type AgentCallContext, type AgentCheckContext, type AgentReply } from './agent-adapter.ts';
export { readAgentJson } from './guards/agent-response.ts';
export type { Signer, SignerKey, SigningAlgorithm } from './signer.ts';
export type { StorageDriver, Store, StoreCapabilities } from './storage.ts';
export type { TaskQueue, TaskQueueFactory, TaskQueueOptions } from './tasks.ts';
export type { AuthProvider, AuthManagerInstance } from './auth-manager.ts';
export type { Services, ServiceSlots, ScheduledJob, DoctorCheck, HookHandler } from './services.ts';
export type { ScenarioFormat } from './domain/scenario-format.ts';
export type { Redactor, RedactionScope, ExcerptOptions } from './redactor.ts';
