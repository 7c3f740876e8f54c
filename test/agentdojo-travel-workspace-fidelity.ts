/**
 * AgentDojo travel and workspace fidelity (issue 35 item 3, "world and tools"), the harness's side: the reference's
 * own run (bench/agentdojo/travel_workspace_reference.py at 96046ab54, recorded in
 * plugins/shims/agentdojo/<suite>/fidelity.fixture.json.gz) replayed through our shim, checks, placement and
 * attacks, without Python:
 * - every task class's ground truth at every benchmark version: each call's output text or error text, the final
 *   world's hash, DeepDiff's report, the class's own check; and every version's check as registered on it;
 * - every (user task, injection task) pair of the v1.1.2 and v1.2.1 task sets through the checks as registered
 *   (both ground truths in turn, and each alone: utility, security, world hash, DeepDiff);
 * - probes: call sequences beyond the ground truths (unknown ids, bad dates, attachments), outputs and world;
 * - each user task's injection candidates (canaries through its ground truth), and for every bundled attack and
 *   every (user task, injection task) the text our attack writes into each vector placement picks (the engine's own
 *   buildAttackCases) and the world that text loads into.
 * Cross-cutting (the AgentDojo shims, the attacks plugin, the evaluation engine's placement), hence in test/.
 * What differs is returned, listed; the fidelity test expects none.
 */
import { createHash } from 'node:crypto';
import type { Shim, ShimCallContext } from '../core/shim.ts';
import type { Attack } from '../core/attack.ts';
import { createRegistry } from '../core/registry.ts';
import { initialStateOf, withVectorTexts } from '../core/domain/injection.ts';
import { BUNDLED_ATTACKS } from '../plugins/attacks/index.ts';
import { buildAttackCases } from '../plugins/evaluation/attacks/attack-cases.ts';
import { agentdojoScenario } from '../plugins/shims/agentdojo/tasks.ts';
import type { AgentDojoSuiteData } from '../plugins/shims/agentdojo/shared/data.ts';
import { checkAt, runSecurity, runUtility, suiteVersion, type CheckInput, type FunctionCallTrace, type SuiteChecks } from '../plugins/shims/agentdojo/shared/checks.ts';
import type { DiffReport } from '../plugins/shims/agentdojo/workspace/deepdiff.ts';

export interface Fixture {
  frozen_now: string;
  initial_hash: string;
  injection_defaults: Record<string, string>;
  sets: Record<string, { user_tasks: Record<string, string>; injection_tasks: Record<string, string> }>;
  tasks: Record<string, { ground_truth: FunctionCallTrace[]; ground_truth_output: string; outputs: Array<{ text: string; error: string | null }>; hash: string; diff: Record<string, unknown>; check: boolean | string }>;
  pairs: Record<string, Record<string, { hash: string; diff: Record<string, unknown>; utility: boolean | string; security: boolean | string; security_user_only: boolean | string; utility_injection_only: boolean | string }>>;
  candidates: Record<string, Record<string, string[]>>;
  /** Per version, attack and `user|injection` pair (`user|dos` for a DoS attack): [injections digest, injected world hash], 16 hex digits each. */
  attacks: Record<string, Record<string, Record<string, [string, string]>>>;
  /** Call sequences beyond the ground truths (error texts, edge cases), each on a fresh default world. */
  probes: Array<{ /** JSON text of the calls (the arguments in the reference's order). */ calls: string; outputs: Array<{ text: string; error: string | null }>; hash: string }>;
  /** The model name the reference's attacks wrote (its pipeline "gpt-4o-2024-05-13"). */
  attack_model_name: string;
}

/** What a suite gives the harness. */
export interface SuiteUnderTest<W> {
  shim: Shim;
  /** The suite's catalog data (the scenario the attacks are built on). */
  data: AgentDojoSuiteData;
  environmentText: string;
  /** The world as pydantic's JSON dump has it (for the hash), and with dicts marked (for DeepDiff). */
  view(world: W): unknown;
  diff(pre: W, post: W): DiffReport;
  checkByKey(key: string): ((input: CheckInput<W>) => boolean) | undefined;
  /** The checks as the suite registers them (by task id and version): what a run uses. */
  checks: SuiteChecks<W>;
}

/** The counts compared, and every difference. */
export interface FidelityReport { counts: Record<string, number>; differences: string[] }

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  return JSON.stringify(value);
}

/** The injections of one case as the fixture digests them: SHA-256 of the JSON of the sorted entries. */
export const injectionsDigest = (injections: Record<string, string>): string => createHash('sha256').update(JSON.stringify(Object.keys(injections).sort().map((key) => [key, injections[key]]))).digest('hex');

/** The fixture's world hash: SHA-256 of the sorted-key JSON of the world's dump. */
export const worldHash = (view: unknown): string => createHash('sha256').update(canonical(view)).digest('hex');

/** Python's verdict text: the boolean, or the exception a check raised (`KeyError: '5'`). */
function verdict(run: () => boolean): boolean | string {
  try {
    return run();
  } catch (error) {
    const py = error as { type?: string; message?: string };
    if (py.type) return `${py.type}: ${py.message}`;
    throw error;
  }
}

/** DeepDiff's report as the fixture writes it: each kind's sorted paths; type changes as [old type, old, new type, new]. */
function reportOf(report: DiffReport): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [kind, value] of Object.entries(report)) {
    if (kind === 'type_changes') out[kind] = Object.fromEntries(Object.entries(value as Record<string, { old: unknown; new: unknown }>).map(([path, c]) => [path, [c.old === null ? 'NoneType' : 'str', c.old === null ? 'None' : String(c.old), c.new === null ? 'NoneType' : 'ReservationType', c.new === null ? 'None' : String(c.new)]]));
    else out[kind] = (Array.isArray(value) ? [...value] : Object.keys(value as object)).sort();
  }
  return out;
}

async function replay<W>(suite: SuiteUnderTest<W>, world: W, calls: readonly FunctionCallTrace[], context: ShimCallContext): Promise<{ world: W; texts: string[] }> {
  const texts: string[] = [];
  for (const call of calls) {
    const outcome = await suite.shim.call(call.function, call.args, world as never, context);
    texts.push('error' in outcome ? outcome.error.message : String(outcome.result));
    world = outcome.state as W;
  }
  return { world, texts };
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** Replays everything the fixture recorded; returns the counts compared and the differences found. */
export async function compareWithReference<W>(suite: SuiteUnderTest<W>, fixture: Fixture): Promise<FidelityReport> {
  const context: ShimCallContext = { config: {}, now: `${fixture.frozen_now}Z` };
  const differences: string[] = [];
  const counts: Record<string, number> = { tasks: 0, outputs: 0, checks: 0, probes: 0, registered: 0, pairs: 0, candidates: 0, attacks: 0, worlds: 0 };
  const load = async (injections: Record<string, string>) => (await suite.shim.initialState({ environment_text: suite.environmentText, injections: { ...fixture.injection_defaults, ...injections } }, context)) as W;
  const initial = await load({});
  if (worldHash(suite.view(initial)) !== fixture.initial_hash) differences.push('the default environment hashes differently');
  const inputOf = (output: string, post: W): CheckInput<W> => ({ output, pre: initial, post, traces: [] });
  for (const [key, task] of Object.entries(fixture.tasks)) {
    counts.tasks++;
    const { world, texts } = await replay(suite, initial, task.ground_truth, context);
    texts.forEach((text, i) => {
      counts.outputs++;
      const expected = task.outputs[i]!.error ?? task.outputs[i]!.text;
      if (text !== expected) differences.push(`${key} call ${i} (${task.ground_truth[i]!.function}): ${JSON.stringify(text).slice(0, 300)} where the reference printed ${JSON.stringify(expected).slice(0, 300)}`);
    });
    if (worldHash(suite.view(world)) !== task.hash) differences.push(`${key}: the final world hashes differently`);
    if (!same(reportOf(suite.diff(initial, world)), task.diff)) differences.push(`${key}: DeepDiff ${canonical(reportOf(suite.diff(initial, world)))} where the reference has ${canonical(task.diff)}`);
    const check = suite.checkByKey(key);
    counts.checks++;
    if (!check) differences.push(`${key}: no check ported`);
    else if (!same(verdict(() => check(inputOf(task.ground_truth_output, world))), task.check)) differences.push(`${key}: the check says ${verdict(() => check(inputOf(task.ground_truth_output, world)))}, the reference ${task.check}`);
  }
  for (const [index, probe] of fixture.probes.entries()) {
    const calls = JSON.parse(probe.calls) as FunctionCallTrace[];
    const { world, texts } = await replay(suite, initial, calls, context);
    texts.forEach((text, i) => {
      counts.probes++;
      const expected = probe.outputs[i]!.error ?? probe.outputs[i]!.text;
      if (text !== expected) differences.push(`probe ${index} call ${i} (${calls[i]!.function}): ${JSON.stringify(text).slice(0, 300)} where the reference printed ${JSON.stringify(expected).slice(0, 300)}`);
    });
    if (worldHash(suite.view(world)) !== probe.hash) differences.push(`probe ${index}: the final world hashes differently`);
  }
  for (const [version, set] of Object.entries(fixture.sets)) {
    // The check a run of `version` takes from the registry gives the verdict of the class that version uses.
    const at = suiteVersion(version, suite.checks.suite);
    for (const [kind, ids] of [['user', set.user_tasks], ['injection', set.injection_tasks]] as const) {
      for (const [id, key] of Object.entries(ids)) {
        counts.registered++;
        const task = fixture.tasks[key]!;
        const world = (await replay(suite, initial, task.ground_truth, context)).world;
        const input = inputOf(task.ground_truth_output, world);
        const found = kind === 'user' ? registeredUtility(suite, id, at) : registeredSecurity(suite, id, at);
        const verdictFound = found ? verdict(() => found(input)) : 'missing';
        if (!same(verdictFound, task.check)) differences.push(`${version} ${id}: the registered check says ${verdictFound}, the reference's ${key} ${task.check}`);
      }
    }
  }
  for (const [version, pairs] of Object.entries(fixture.pairs)) {
    const set = fixture.sets[version]!;
    const at = suiteVersion(version, suite.checks.suite);
    for (const [pair, expected] of Object.entries(pairs)) {
      counts.pairs++;
      const [userId, injectionId] = pair.split('|') as [string, string];
      const [user, injection] = [set.user_tasks[userId]!, set.injection_tasks[injectionId]!];
      const [userTask, injectionTask] = [fixture.tasks[user]!, fixture.tasks[injection]!];
      const afterUser = (await replay(suite, initial, userTask.ground_truth, context)).world;
      const both = (await replay(suite, afterUser, injectionTask.ground_truth, context)).world;
      const afterInjection = (await replay(suite, initial, injectionTask.ground_truth, context)).world;
      const output = userTask.ground_truth_output + injectionTask.ground_truth_output;
      const [utility, security] = [registeredUtility(suite, userId, at), registeredSecurity(suite, injectionId, at)];
      const found = {
        hash: worldHash(suite.view(both)), diff: reportOf(suite.diff(initial, both)),
        utility: utility ? verdict(() => utility(inputOf(output, both))) : 'missing', security: security ? verdict(() => security(inputOf(output, both))) : 'missing',
        security_user_only: security ? verdict(() => security(inputOf(userTask.ground_truth_output, afterUser))) : 'missing',
        utility_injection_only: utility ? verdict(() => utility(inputOf(injectionTask.ground_truth_output, afterInjection))) : 'missing',
      };
      for (const field of Object.keys(found) as Array<keyof typeof found>) {
        if (!same(found[field], expected[field])) differences.push(`${version} ${pair} ${field}: ${canonical(found[field]).slice(0, 300)} where the reference has ${canonical(expected[field]).slice(0, 300)}`);
      }
    }
  }
  await compareInjections(suite, fixture, load, context, counts, differences);
  return { counts, differences };
}

function registeredUtility<W>(suite: SuiteUnderTest<W>, id: string, version: string): ((input: CheckInput<W>) => boolean) | undefined {
  const check = checkAt(suite.checks.user[id], version);
  return check && ((input) => runUtility(check, input));
}

function registeredSecurity<W>(suite: SuiteUnderTest<W>, id: string, version: string): ((input: CheckInput<W>) => boolean) | undefined {
  const check = checkAt(suite.checks.injection[id], version);
  return check && ((input) => runSecurity(check, input));
}

/** Injection candidates (the reference's rule: canaries through the ground truth) and every attack case's text and world. */
async function compareInjections<W>(suite: SuiteUnderTest<W>, fixture: Fixture, load: (injections: Record<string, string>) => Promise<W>, context: ShimCallContext, counts: Record<string, number>, differences: string[]): Promise<void> {
  const canaries = Object.fromEntries(Object.keys(fixture.injection_defaults).map((name) => [name, `<CANARY---${name}--->`]));
  const canaryWorld = await load(canaries);
  for (const [version, byUser] of Object.entries(fixture.candidates)) {
    for (const [userId, expected] of Object.entries(byUser)) {
      counts.candidates++;
      const task = fixture.tasks[fixture.sets[version]!.user_tasks[userId]!]!;
      const { texts } = await replay(suite, canaryWorld, task.ground_truth, context);
      const seen = Object.keys(canaries).filter((name) => texts.some((text) => text.includes(canaries[name]!)));
      if (!same(seen, expected)) differences.push(`${version} ${userId} candidates: ${seen.join(', ')} where the reference has ${expected.join(', ')}`);
    }
  }
  const attacks = createRegistry<Attack>('attack', (attack) => attack.name);
  for (const attack of BUNDLED_ATTACKS) attacks.register(attack);
  const shims = createRegistry<Shim>('shim', (shim) => shim.name);
  shims.register(suite.shim);
  // The injected world is a function of the injections alone: each distinct set is loaded once.
  const worlds = new Map<string, string>();
  for (const [version, byAttack] of Object.entries(fixture.attacks)) {
    const scenario = { ...agentdojoScenario(suite.data, { version }), attacks: Object.keys(byAttack).map((attack) => ({ attack, settings: { model_name: fixture.attack_model_name } })) };
    const { variants } = await buildAttackCases({ attacks, shims, scenario, now: context.now });
    const ours = new Map(variants.map((variant) => [variant.variant_id, variant.attack!]));
    const expectedCases = Object.values(byAttack).reduce((sum, rows) => sum + Object.keys(rows).length, 0);
    if (variants.length !== expectedCases) differences.push(`${version}: ${variants.length} attack cases where the reference has ${expectedCases}`);
    for (const [name, rows] of Object.entries(byAttack)) {
      for (const [pair, [digest, hash]] of Object.entries(rows)) {
        counts.attacks++;
        const [userId, injectionId] = pair.split('|') as [string, string];
        const what = `${version} ${name} ${userId} × ${injectionId}`;
        const found = ours.get(`attack:${name}/${injectionId}@${userId}`);
        if (!found) {
          differences.push(`${what}: no attack case`);
          continue;
        }
        if (!same(Object.keys(found.injections).sort(), [...fixture.candidates[version]![userId]!].sort())) differences.push(`${what}: vectors ${Object.keys(found.injections).join(', ')}`);
        const foundDigest = injectionsDigest(found.injections);
        if (foundDigest.slice(0, 16) !== digest) {
          differences.push(`${what}: the injected text differs (${JSON.stringify(found.injections).slice(0, 300)})`);
          continue;
        }
        let world = worlds.get(foundDigest);
        if (world === undefined) {
          counts.worlds++;
          const seed = initialStateOf(withVectorTexts(scenario, found.injections), suite.shim.name);
          world = worldHash(suite.view((await suite.shim.initialState(seed as never, context)) as W));
          worlds.set(foundDigest, world);
        }
        if (world.slice(0, 16) !== hash) differences.push(`${what}: the injected world hashes differently`);
      }
    }
  }
}
