#!/usr/bin/env -S npx tsx
// AgentDojo's published runs (issue 35 item 3, "judges"): reads `runs/<model>/<suite>/…` of the reference at the
// pinned commit, reduces each run to its record (plugins/shims/agentdojo/traces.ts: the tool calls in order, the
// final answer, the recorded utility and security, a digest of the injections) and writes the records of each
// suite (with --write-fixture to plugins/shims/agentdojo/traces/<suite>.json.gz, which test/agentdojo-traces.test.ts
// replays without Python or the reference), then replays them through the service (`aeh bench agentdojo --replay`,
// in-process) and prints the agreement with the recorded verdicts and the tools' answers, and the paper's table.
//
// Usage: npx tsx bench/agentdojo/traces.ts [--suite banking|slack|…|all] [--models m1,m2,…] [--runs <dir with runs/>]
//          [--benchmark-version v1.2.1|v1.1.2] [--write-fixture]
// Without --runs the runs are read from the git mirror at the pinned commit (git archive into a temporary dir).
// Any published model replays (--models gpt-4o-2024-05-13,…); the v1.2-era four are the default.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AGENTDOJO_SUITES } from '../../plugins/shims/agentdojo/index.ts';
import { agentdojoRunOf, type AgentDojoRun, type PublishedRun } from '../../plugins/shims/agentdojo/traces.ts';
import { benchAgentDojoCommand } from '../../cli/commands/bench-agentdojo.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const MIRROR = '/work/.mirror/sequrity-ai+agentdojo/repo';
const PINNED = '96046ab54';
/** The v1.2-era runs the issue names (each run at benchmark v1.2.1). */
const MODELS = ['claude-3-7-sonnet-20250219', 'gemini-2.0-flash-001', 'meta-llama_Llama-3.3-70B-Instruct', 'Meta-SecAlign-70B'];

const argument = (name: string, fallback?: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const suites = argument('suite', 'all') === 'all' ? AGENTDOJO_SUITES.map((entry) => entry.suite) : argument('suite')!.split(',');
const models = argument('models', MODELS.join(','))!.split(',');
/** The benchmark version the runs were made at (the v1.2-era runs: v1.2.1). */
const version = argument('benchmark-version', 'v1.2.1')!;

function runsDir(): string {
  const given = argument('runs');
  if (given) return resolve(given);
  const dir = mkdtempSync(join(tmpdir(), 'agentdojo-runs-'));
  for (const model of models) {
    for (const suite of suites) execFileSync('sh', ['-c', `git -C ${MIRROR} archive ${PINNED} runs/${model}/${suite} | tar -x -C ${dir}`]);
  }
  return dir;
}

/** Every run of `model` on `suite` under `root/runs`, in a stable order (task, attack, injection task). */
async function readRuns(root: string, model: string, suite: string): Promise<AgentDojoRun[]> {
  const dir = join(root, 'runs', model, suite);
  const bundled = AGENTDOJO_SUITES.find((entry) => entry.suite === suite);
  if (!bundled) throw new Error(`no bundled AgentDojo suite "${suite}" (register it in plugins/shims/agentdojo/index.ts first)`);
  const tools = new Set(bundled.shim.actions.map((action) => action.name));
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const task of readdirSync(dir)) for (const attack of readdirSync(join(dir, task))) for (const file of readdirSync(join(dir, task, attack))) files.push(join(task, attack, file));
  const number = (text: string) => text.split(/(\d+)/).map((part, index) => (index % 2 ? part.padStart(4, '0') : part)).join('');
  files.sort((a, b) => number(a).localeCompare(number(b)));
  return Promise.all(files.map(async (file) => agentdojoRunOf(model, JSON.parse(readFileSync(join(dir, file), 'utf8')) as PublishedRun, tools)));
}

const root = runsDir();
const scratch = mkdtempSync(join(tmpdir(), 'agentdojo-records-'));
const files: string[] = [];
for (const suite of suites) {
  const runs = (await Promise.all(models.map((model) => readRuns(root, model, suite)))).flat();
  console.error(`${suite}: ${runs.length} runs of ${models.length} models`);
  const bytes = gzipSync(JSON.stringify({ source: `sequrity-ai/agentdojo ${PINNED} runs/ (MIT)`, version, runs }), { level: 9 });
  // The records replayed are the ones just read; --write-fixture also commits them as the suite's fixture.
  const out = process.argv.includes('--write-fixture') ? join(repoRoot, 'plugins', 'shims', 'agentdojo', 'traces', `${suite}.json.gz`) : join(scratch, `${suite}.json.gz`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.error(`wrote ${out} (${(bytes.length / 1024).toFixed(0)} KB)`);
  files.push(out);
}
const io = { stdout: process.stdout, stderr: process.stderr, env: { ...process.env, AEH_STORAGE: 'memory', DASHBOARD_API_KEY: 'b'.repeat(64) }, cwd: mkdtempSync(join(tmpdir(), 'agentdojo-replay-')) };
process.exitCode = await benchAgentDojoCommand(['agentdojo', '--replay', files.join(','), '--poll-ms', '100'], io as never);
