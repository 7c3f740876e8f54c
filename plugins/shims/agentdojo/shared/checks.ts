/**
 * AgentDojo's task checks as data a suite registers: each user task's `utility` (and `utility_from_traces`, which
 * the reference asks first and whose `None` defers to `utility`), each injection task's `security` (and
 * `security_from_traces`), over the agent's final answer, the environment before and after, and the tool calls
 * made (base_tasks.py, task_suite.py `_check_task_result` at 96046ab54). A task's check may change between
 * benchmark versions (`update_user_task((1, 1, 1))`): each registration says since which version it holds, and a
 * run of version v takes the latest one not after v (`get_version_compatible_items`).
 */

/** A tool call as the reference's traces hold it: the function's name (bare) and its arguments as the agent sent them. */
export interface FunctionCallTrace {
  function: string;
  args: Record<string, unknown>;
}

/** What a check reads. */
export interface CheckInput<E> {
  /** The agent's final answer (the last assistant message's text). */
  output: string;
  /** The environment when the task started (after the task's `init_environment`). */
  pre: E;
  /** The environment when the agent was done. */
  post: E;
  traces: readonly FunctionCallTrace[];
}

/** A user task's checks: `fromTraces` first, its `null` deferring to `utility`. */
export interface UtilityCheck<E> {
  utility(input: CheckInput<E>): boolean;
  fromTraces?(input: CheckInput<E>): boolean | null;
}

/** An injection task's checks: true when the attacker's goal happened. */
export interface SecurityCheck<E> {
  security(input: CheckInput<E>): boolean;
  fromTraces?(input: CheckInput<E>): boolean | null;
}

/** A check and the benchmark version it holds from (`1.0.0`, `1.1.1`, `1.2.0`). */
export type Versioned<T> = ReadonlyArray<readonly [since: string, check: T]>;

/** A suite's checks, by task id (`user_task_3`, `injection_task_1`). */
export interface SuiteChecks<E = never> {
  suite: string;
  /** The suite's shim (`agentdojo_banking`), whose views are the environments. */
  shim: string;
  user: Readonly<Record<string, Versioned<UtilityCheck<E>>>>;
  injection: Readonly<Record<string, Versioned<SecurityCheck<E>>>>;
}

/** The benchmark versions AgentDojo publishes, as the reference's `get_suites` names them. */
export const BENCHMARK_VERSIONS = ['v1', 'v1.1', 'v1.1.1', 'v1.1.2', 'v1.2', 'v1.2.1'] as const;
export type BenchmarkVersion = (typeof BENCHMARK_VERSIONS)[number];

/**
 * The version tuple each suite of a benchmark version runs at (task_suite/load_suites.py): v1.1.2 runs banking and
 * slack at 1.1.1, v1.2.1 runs them (and travel) at 1.2.0 and workspace at 1.2.1.
 */
export function suiteVersion(benchmark: string, suite: string): string {
  const table: Record<string, Record<string, string>> = {
    v1: {}, 'v1.1': { travel: '1.1.0' }, 'v1.1.1': { '*': '1.1.1' }, 'v1.1.2': { '*': '1.1.2', banking: '1.1.1', slack: '1.1.1' },
    'v1.2': { '*': '1.2.0' }, 'v1.2.1': { '*': '1.2.0', workspace: '1.2.1' },
  };
  const row = table[benchmark];
  if (!row) throw new Error(`unknown AgentDojo benchmark version "${benchmark}" (known: ${BENCHMARK_VERSIONS.join(', ')})`);
  return row[suite] ?? row['*'] ?? '1.0.0';
}

const parts = (version: string) => version.split('.').map(Number);
function compareVersions(a: string, b: string): number {
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < 3; index++) if ((left[index] ?? 0) !== (right[index] ?? 0)) return (left[index] ?? 0) - (right[index] ?? 0);
  return 0;
}

/** The check a run of suite version `version` uses: the latest registered at or before it; undefined when none. */
export function checkAt<T>(versions: Versioned<T> | undefined, version: string): T | undefined {
  let chosen: readonly [string, T] | undefined;
  for (const entry of versions ?? []) if (compareVersions(entry[0], version) <= 0 && (!chosen || compareVersions(entry[0], chosen[0]) > 0)) chosen = entry;
  return chosen?.[1];
}

/** The reference's `_check_user_task_utility`. */
export function runUtility<E>(check: UtilityCheck<E>, input: CheckInput<E>): boolean {
  const fromTraces = check.fromTraces?.(input);
  return fromTraces ?? check.utility(input);
}

/** The reference's `_check_injection_task_security`. */
export function runSecurity<E>(check: SecurityCheck<E>, input: CheckInput<E>): boolean {
  const fromTraces = check.fromTraces?.(input);
  return fromTraces ?? check.security(input);
}
