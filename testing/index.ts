/**
 * The conformance suites, one per extension point, in one import: `agent-eval-harness/testing` in an installed
 * package (package.json `exports`), this file in the repository. Every bundled plugin runs the suite of its kind,
 * and so can yours: `testMetric(myMetric)` inside a vitest file registers the cases (vitest is an optional peer
 * dependency of the package). The suites import only the kernel, never a bundled plugin or the repository's tests.
 */
export { testMetric, metricContext, expectConformingResult, CONFORMANCE_CANARY, CONFORMANCE_CARD, type ContextOptions, type TestMetricOptions } from './metric.ts';
export { testMutator, sampleScenario, wellFormed, FRAGILE_CLUSTERS, type MutatorConformanceOptions } from './mutator.ts';
export { testShim, type ShimStep, type ShimConformanceOptions } from './shim.ts';
export { testSigner } from './signer.ts';
export { testStorage, type StorageConformanceOptions } from './storage.ts';
