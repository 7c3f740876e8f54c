/**
 * AgentDojo bundled as written (issue 35; Debenedetti et al., NeurIPS 2024 Datasets & Benchmarks, MIT): each
 * suite a shim family member (`agentdojo_<suite>`) with AgentDojo's tools, its environment and tasks as catalog
 * data (catalog/data/agentdojo), its checks as the `agentdojo_utility` and `agentdojo_security` metrics, and
 * `agentdojoScenario` turning a suite at a benchmark version into a scenario. README.md says how to add a suite.
 */
import type { AgentDojoSuite } from './shared/suite.ts';
import { bankingSuite } from './banking/index.ts';
import { slackSuite } from './slack/index.ts';
import { travelSuite } from './travel/index.ts';
import { workspaceSuite } from './workspace/index.ts';

export { agentdojoScenario, AGENTDOJO_OPENAI_DEFAULTS, type AgentDojoScenarioOptions } from './tasks.ts';
export { readAgentDojoSuite, AGENTDOJO_REFERENCE, type AgentDojoSuiteData } from './shared/data.ts';
export { suiteVersion, BENCHMARK_VERSIONS } from './shared/checks.ts';
export type { AgentDojoSuite } from './shared/suite.ts';

/** The suites bundled, in AgentDojo's order of its table. */
export const AGENTDOJO_SUITES: readonly AgentDojoSuite[] = [workspaceSuite, travelSuite, bankingSuite, slackSuite];

/** Where the bundled catalog keeps AgentDojo's data. */
export const BUNDLED_AGENTDOJO_SUBDIR = 'data/agentdojo';
