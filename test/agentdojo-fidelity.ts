/**
 * AgentDojo fidelity (issue 35 item 3, "world and tools"), the harness's side: what the reference's own Python
 * printed (bench/agentdojo/reference_driver.py, recorded in plugins/shims/agentdojo/fidelity/<suite>.json.gz by
 * bench/agentdojo/fidelity.ts) recomputed through our code and compared, item by item:
 * - the environment text `read_suite_file` dumps, and each tool's name, description and JSON Schema;
 * - every user and injection task's ground truth run through our shim: each tool output string (or error text),
 *   the final environment's hash, and the task's own check (utility, security) on it;
 * - the checks over three trajectories of every (user task, injection task) pair (user ground truth, injection
 *   ground truth, both), utility and security each;
 * - for every attack, user task and injection task: the vectors placement chooses (canaries through the ground
 *   truth), the text the harness's attack writes into each, and the hash of the world that text loads into.
 * Cross-cutting (the attacks plugin, the evaluation engine's placement, the AgentDojo shims), hence in test/.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRegistry } from '../core/registry.ts';
import type { Attack } from '../core/attack.ts';
import type { Shim, Json } from '../core/shim.ts';
import { BUNDLED_ATTACKS } from '../plugins/attacks/index.ts';
import { buildAttackCases } from '../plugins/evaluation/attacks/attack-cases.ts';
import { AGENTDOJO_SUITES, agentdojoScenario, readAgentDojoSuite } from '../plugins/shims/agentdojo/index.ts';
import { environmentText, vectorsOf } from '../plugins/shims/agentdojo/shared/environment.ts';
import { checkAt, runSecurity, runUtility, suiteVersion, type FunctionCallTrace } from '../plugins/shims/agentdojo/shared/checks.ts';
import { dbHash } from '../plugins/shims/tau/shared.ts';

/** One call's outcome as the reference's runtime gives it to the agent. */
export type CallOutcome = { output: string } | { error: string };

/** What the reference printed for one suite at one version (the fixture's entry; hashes as the driver writes them). */
export interface ReferenceSuite {
  suite: string;
  version: string;
  environment_text_sha256: string;
  tools: Array<{ name: string; description: string; parameters: unknown }>;
  user_tasks: Array<{ id: string; ground_truth: Array<{ function: string; args: Record<string, unknown> }>; ground_truth_output: string; outputs: CallOutcome[]; final_hash: string; utility: boolean }>;
  injection_tasks: Array<{ id: string; ground_truth: Array<{ function: string; args: Record<string, unknown> }>; ground_truth_output: string; outputs: CallOutcome[]; final_hash: string; security: boolean }>;
  /** `user|injection|trajectory|utility|security` (trajectory u, i or b; verdicts 0/1). */
  judges: string[];
  attacks: Array<{ attack: string; user_task: string; injection_task?: string; not_injectable?: boolean; candidates?: string[]; injections_sha256?: string; env_hash?: string }>;
  model_name: string;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The injections of one case as the fixture hashes them: JSON of the sorted entries. */
export const injectionsDigest = (injections: Record<string, string>) => sha256(JSON.stringify(Object.keys(injections).sort().map((key) => [key, injections[key]])));

/** A mismatch, said in words. */
export interface Difference { what: string; ours: unknown; reference: unknown }

/** The counts the comparison made and every difference it found. */
export interface FidelityReport {
  counts: Record<string, { same: number; total: number }>;
  differences: Difference[];
}

const CONTEXT = { config: {}, now: '2026-01-01T00:00:00Z' };

function tally(report: FidelityReport, kind: string, same: boolean, what: string, ours: unknown, reference: unknown): void {
  const entry = (report.counts[kind] ??= { same: 0, total: 0 });
  entry.total++;
  if (same) entry.same++;
  else if (report.differences.length < 50) report.differences.push({ what, ours, reference });
}

/** Runs `calls` on a fresh default world; the outcomes, the states before and after. */
async function runCalls(shim: Shim, seed: Json, calls: ReadonlyArray<{ function: string; args: Record<string, unknown> }>) {
  const pre = await shim.initialState(seed, CONTEXT);
  let state = pre;
  const outcomes: CallOutcome[] = [];
  for (const call of calls) {
    const outcome = await shim.call(call.function, call.args, state, CONTEXT);
    outcomes.push('error' in outcome ? { error: outcome.error.message } : { output: String(outcome.result) });
    state = outcome.state;
  }
  return { pre, post: state, outcomes };
}

/** Compares our code with the reference's recorded output for one suite at one version. */
export async function compareSuite(dataDir: string, reference: ReferenceSuite, report: FidelityReport): Promise<void> {
  const bundled = AGENTDOJO_SUITES.find((entry) => entry.suite === reference.suite);
  if (!bundled) throw new Error(`no bundled AgentDojo suite "${reference.suite}"`);
  const { shim, checks } = bundled;
  const data = await readAgentDojoSuite(dataDir, reference.suite, (path) => readFile(path).then((bytes) => new Uint8Array(bytes)));
  const vectors = vectorsOf(data.vectorsYaml);
  const text = environmentText(data.environmentYaml, Object.keys(vectors), data.includes);
  const label = `${reference.suite} ${reference.version}`;
  tally(report, 'environment text', sha256(text) === reference.environment_text_sha256, `${label} environment text`, sha256(text), reference.environment_text_sha256);
  for (const tool of reference.tools) {
    const ours = shim.actions.find((action) => action.name === tool.name);
    const same = ours !== undefined && ours.description === tool.description && JSON.stringify(ours.parameters) === JSON.stringify(tool.parameters);
    tally(report, 'tool schemas', same, `${label} tool ${tool.name}`, ours && { description: ours.description, parameters: ours.parameters }, tool);
  }
  tally(report, 'tool schemas', shim.actions.length === reference.tools.length, `${label} tool count`, shim.actions.length, reference.tools.length);
  const defaults = Object.fromEntries(Object.entries(vectors).map(([name, vector]) => [name, vector.default]));
  const seed = (injections: Record<string, string>) => ({ environment_text: text, injections: { ...defaults, ...injections } });
  const suiteAt = suiteVersion(reference.version, reference.suite);
  for (const [kind, tasks] of [['user', reference.user_tasks], ['injection', reference.injection_tasks]] as const) {
    for (const task of tasks) {
      const { pre, post, outcomes } = await runCalls(shim, seed({}), task.ground_truth);
      task.outputs.forEach((expected, index) => tally(report, 'ground-truth tool outputs', JSON.stringify(outcomes[index]) === JSON.stringify(expected), `${label} ${task.id} call ${index} (${task.ground_truth[index]!.function})`, outcomes[index], expected));
      tally(report, 'ground-truth final worlds', dbHash(post) === task.final_hash, `${label} ${task.id} final world`, dbHash(post), task.final_hash);
      const input = { output: task.ground_truth_output, pre, post, traces: task.ground_truth as FunctionCallTrace[] };
      const verdict = kind === 'user' ? runUtility(checkAt(checks.user[task.id], suiteAt)!, input) : runSecurity(checkAt(checks.injection[task.id], suiteAt)!, input);
      const expected = 'utility' in task ? task.utility : task.security;
      tally(report, 'ground-truth checks', verdict === expected, `${label} ${task.id} ${kind === 'user' ? 'utility' : 'security'} on its ground truth`, verdict, expected);
    }
  }
  await compareJudges(shim, checks, reference, seed({}), suiteAt, report);
  await compareAttacks(data, shim, reference, seed, report);
}

async function compareJudges(shim: Shim, checks: (typeof AGENTDOJO_SUITES)[number]['checks'], reference: ReferenceSuite, seed: Json, suiteAt: string, report: FidelityReport): Promise<void> {
  const users = new Map(reference.user_tasks.map((task) => [task.id, task]));
  const injections = new Map(reference.injection_tasks.map((task) => [task.id, task]));
  for (const line of reference.judges) {
    const [userId, injectionId, trajectory, utility, security] = line.split('|') as [string, string, string, string, string];
    const user = users.get(userId)!;
    const injection = injections.get(injectionId)!;
    const calls = [...(trajectory !== 'i' ? user.ground_truth : []), ...(trajectory !== 'u' ? injection.ground_truth : [])];
    const output = [trajectory !== 'i' ? user.ground_truth_output : '', trajectory !== 'u' ? injection.ground_truth_output : ''].join(' ').trim();
    const { pre, post } = await runCalls(shim, seed, calls);
    const input = { output, pre, post, traces: calls as FunctionCallTrace[] };
    const ours = `${runUtility(checkAt(checks.user[userId], suiteAt)!, input) ? 1 : 0}|${runSecurity(checkAt(checks.injection[injectionId], suiteAt)!, input) ? 1 : 0}`;
    tally(report, 'checks over trajectories', ours === `${utility}|${security}`, `${reference.suite} ${reference.version} ${userId} × ${injectionId} (${trajectory}) utility|security`, ours, `${utility}|${security}`);
  }
}

async function compareAttacks(data: Awaited<ReturnType<typeof readAgentDojoSuite>>, shim: Shim, reference: ReferenceSuite, seed: (injections: Record<string, string>) => Json, report: FidelityReport): Promise<void> {
  const attacks = createRegistry<Attack>('attack', (attack) => attack.name);
  for (const attack of BUNDLED_ATTACKS) attacks.register(attack);
  const shims = createRegistry<Shim>('shim', (entry) => entry.name);
  shims.register(shim);
  const names = [...new Set(reference.attacks.map((entry) => entry.attack))];
  const scenario = { ...agentdojoScenario(data, { version: reference.version }), attacks: names.map((attack) => ({ attack, settings: { model_name: reference.model_name } })) };
  const { variants, notInjectable } = await buildAttackCases({ attacks, shims, scenario, now: CONTEXT.now });
  const byId = new Map(variants.map((variant) => [variant.variant_id, variant.attack!]));
  const label = `${reference.suite} ${reference.version}`;
  for (const entry of reference.attacks) {
    if (entry.not_injectable) {
      tally(report, 'not injectable', notInjectable.includes(entry.user_task), `${label} ${entry.user_task} not injectable`, notInjectable.includes(entry.user_task), true);
      continue;
    }
    const ours = byId.get(`attack:${entry.attack}/${entry.injection_task === 'dos' ? 'dos' : entry.injection_task}@${entry.user_task}`);
    const what = `${label} ${entry.attack} ${entry.user_task} × ${entry.injection_task}`;
    tally(report, 'placement (vectors)', JSON.stringify(Object.keys(ours?.injections ?? {}).sort()) === JSON.stringify([...entry.candidates!].sort()), `${what} vectors`, Object.keys(ours?.injections ?? {}), entry.candidates);
    const digest = ours ? injectionsDigest(ours.injections) : undefined;
    tally(report, 'attack texts', digest === entry.injections_sha256, `${what} injections`, ours?.injections, entry.injections_sha256);
    const world = ours ? dbHash(await shim.initialState(seed(ours.injections), CONTEXT)) : undefined;
    tally(report, 'injected worlds', world === entry.env_hash, `${what} world`, world, entry.env_hash);
  }
}
