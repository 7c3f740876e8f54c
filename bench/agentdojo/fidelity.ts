#!/usr/bin/env -S npx tsx
// AgentDojo fidelity (issue 35 item 3, "world and tools"): the reference's own Python (bench/agentdojo/
// reference_driver.py on the pinned commit) and our code side by side, for every user and injection task's ground
// truth (each tool output string, the final world's hash, the task's own check), the checks over three trajectories
// of every (user task, injection task) pair, and every bundled attack's placement, text and injected world for every
// (user task, injection task). Prints the counts and every difference (test/agentdojo-fidelity.ts compares).
//
// Usage: npx tsx bench/agentdojo/fidelity.ts [--src <checkout>/src] [--suite banking|slack|…|all]
//          [--versions v1.2.1,v1.1.2] [--attacks important_instructions,…] [--write-fixture] [--write-data]
// Without --src, the reference is read from the git mirror at the pinned commit (git archive into a temporary dir).
// --write-fixture writes what the reference printed to plugins/shims/agentdojo/fidelity/<suite>.json.gz, which
// test/agentdojo-fidelity.test.ts checks on every CI run without Python; --write-data rewrites
// catalog/data/agentdojo/<suite>/tasks.json from the same output.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BUNDLED_ATTACKS } from '../../plugins/attacks/index.ts';
import { AGENTDOJO_SUITES } from '../../plugins/shims/agentdojo/index.ts';
import { compareSuite, injectionsDigest, sha256, type FidelityReport, type ReferenceSuite } from '../../test/agentdojo-fidelity.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const MIRROR = '/work/.mirror/sequrity-ai+agentdojo/repo';
export const PINNED = '96046ab54';
/** The pipeline name the reference's attacks read the model from (`get_model_name_from_pipeline`): GPT-4. */
const PIPELINE = 'gpt-4o-2024-05-13';

const argument = (name: string, fallback?: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const suites = argument('suite', 'all') === 'all' ? AGENTDOJO_SUITES.map((entry) => entry.suite) : argument('suite')!.split(',');
const versions = argument('versions', 'v1.2.1,v1.1.2')!.split(',');
const attacks = argument('attacks', BUNDLED_ATTACKS.map((attack) => attack.name).join(','))!;

function referenceSources(): string {
  const given = argument('src');
  if (given) return resolve(given);
  const dir = mkdtempSync(join(tmpdir(), 'agentdojo-ref-'));
  execFileSync('sh', ['-c', `git -C ${MIRROR} archive ${PINNED} src/agentdojo | tar -x -C ${dir}`]);
  return join(dir, 'src');
}

/** The reference's output for one suite at one version, reduced to what the fixture keeps. */
function runReference(src: string, suite: string, version: string): { reference: ReferenceSuite; raw: any } {
  const started = performance.now();
  const child = spawnSync('python3', [join(repoRoot, 'bench', 'agentdojo', 'reference_driver.py'), '--src', src, '--suite', suite, '--version', version, '--judges', '--attacks', attacks, '--model-name', PIPELINE], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (child.status !== 0) throw new Error(`reference driver failed for ${suite} ${version}: ${child.stderr}`);
  const raw = JSON.parse(child.stdout);
  console.error(`reference ${suite} ${version}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const trajectory = { user: 'u', injection: 'i', both: 'b' } as Record<string, string>;
  const reference: ReferenceSuite = {
    suite, version, model_name: 'GPT-4',
    environment_text_sha256: sha256(raw.environment_text),
    tools: raw.tools,
    user_tasks: raw.user_tasks.map(({ id, ground_truth, ground_truth_output, outputs, final_hash, utility }: any) => ({ id, ground_truth, ground_truth_output, outputs, final_hash, utility })),
    injection_tasks: raw.injection_tasks.map(({ id, ground_truth, ground_truth_output, outputs, final_hash, security }: any) => ({ id, ground_truth, ground_truth_output, outputs, final_hash, security })),
    judges: raw.judges.map((entry: any) => `${entry.user_task}|${entry.injection_task}|${trajectory[entry.trajectory]}|${entry.utility ? 1 : 0}|${entry.security ? 1 : 0}`),
    attacks: raw.attacks.map((entry: any) => (entry.not_injectable
      ? { attack: entry.attack, user_task: entry.user_task, not_injectable: true }
      : { attack: entry.attack, user_task: entry.user_task, injection_task: entry.injection_task, candidates: entry.candidates, injections_sha256: injectionsDigest(entry.injections), env_hash: entry.env_hash })),
  };
  return { reference, raw };
}

function tasksFile(suite: string, raws: Record<string, any>) {
  const pickUser = ({ id, prompt, ground_truth_output, difficulty, ground_truth }: any) => ({ id, prompt, ground_truth_output, difficulty, ground_truth });
  const pickInjection = ({ id, goal, ground_truth_output, difficulty, ground_truth }: any) => ({ id, goal, ground_truth_output, difficulty, ground_truth });
  const out = { suite, reference: 'sequrity-ai/agentdojo 96046ab54 (ethz-spylab/agentdojo upstream history), src/agentdojo/default_suites', versions: {} as Record<string, unknown> };
  for (const [version, raw] of Object.entries(raws)) out.versions[version] = { user_tasks: raw.user_tasks.map(pickUser), injection_tasks: raw.injection_tasks.map(pickInjection) };
  return `${JSON.stringify(out, null, 1)}\n`;
}

const src = referenceSources();
const dataDir = join(repoRoot, 'catalog', 'data', 'agentdojo');
const report: FidelityReport = { counts: {}, differences: [] };
for (const suite of suites) {
  const recorded: Record<string, ReferenceSuite> = {};
  const raws: Record<string, any> = {};
  for (const version of versions) {
    const { reference, raw } = runReference(src, suite, version);
    recorded[version] = reference;
    raws[version] = raw;
    const started = performance.now();
    await compareSuite(dataDir, reference, report);
    console.error(`ours ${suite} ${version}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  if (process.argv.includes('--write-data')) writeFileSync(join(dataDir, suite, 'tasks.json'), tasksFile(suite, raws));
  if (process.argv.includes('--write-fixture')) {
    const dir = join(repoRoot, 'plugins', 'shims', 'agentdojo', 'fidelity');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${suite}.json.gz`), gzipSync(JSON.stringify({ reference: `agentdojo ${PINNED}`, pipeline: PIPELINE, versions: recorded }), { level: 9 }));
  }
}
for (const [kind, { same, total }] of Object.entries(report.counts)) console.log(`${kind.padEnd(28)} ${same}/${total}${same === total ? '' : '  DIFFERENT'}`);
for (const difference of report.differences) console.log(`- ${difference.what}\n    ours:      ${JSON.stringify(difference.ours)?.slice(0, 400)}\n    reference: ${JSON.stringify(difference.reference)?.slice(0, 400)}`);
process.exitCode = report.differences.length ? 1 : 0;
