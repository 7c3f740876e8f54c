/** One AgentDojo suite as the harness bundles it: its shim and its checks (what a suite folder exports). */
import type { Shim } from '../../../../core/shim.ts';
import type { SuiteChecks } from './checks.ts';

export interface AgentDojoSuite {
  /** AgentDojo's suite name (`banking`). */
  suite: string;
  /** The `agentdojo_<suite>` shim. */
  shim: Shim;
  /** Its user tasks' utility and injection tasks' security checks. */
  checks: SuiteChecks<unknown>;
}
