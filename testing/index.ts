/**
 * The conformance suites, one per extension point, in one import: `agent-eval-harness/testing` in an installed
 * package (package.json `exports`), this file in the repository. Every bundled plugin runs the suite of its kind,
 * and so can yours: `testMetric(myMetric)` inside a vitest file registers the cases (vitest is an optional peer
 * dependency of the package). The suites import only the kernel, never a bundled plugin or the repository's tests.
 */
export { testMetric, metricContext, expectConformingResult, CONFORMANCE_CANARY, CONFORMANCE_CARD, type ContextOptions, type TestMetricOptions } from './metric.ts';
export { testMutator, sampleScenario, wellFormed, mustSurvive, FRAGILE_CLUSTERS, type MutatorConformanceOptions } from './mutator.ts';
export { PROTECTION_CORPUS } from './mutator-corpus.ts';
export { testShim, type ShimStep, type ShimConformanceOptions } from './shim.ts';
export { testSigner } from './signer.ts';
export { testStorage, type StorageConformanceOptions } from './storage.ts';
export { testAgentAdapter, type AgentAdapterConformanceOptions } from './agent-adapter.ts';
export {
  agentCallContext, agentNetwork, CONFORMANCE_AGENT_URL, CONFORMANCE_INTERNAL_URL, CONFORMANCE_AGENT_KEY_ENV, CONFORMANCE_AGENT_SECRET,
  type AgentNetwork, type AgentHandler, type CallContextOptions,
} from './agent-network.ts';
export { pluginHost, type PluginHostOptions } from './host.ts';
export { testAuthProvider, type AuthProviderConformanceOptions, type ValidCredential } from './auth-provider.ts';
export { testQueue, type QueueFactory, type QueueConformanceOptions } from './queue.ts';
