/**
 * The npm package end to end (issue 14, "Installable"): `npm pack`, a fresh project that installs the tarball
 * (`npm init -y`, `npm install <tarball>`), the files of examples/as-dependency copied in (a plugin in JavaScript
 * and one in TypeScript, both importing `agent-eval-harness/plugin`, loaded by `aeh.config.mjs` and
 * `AEH_PLUGINS`), then the service started with the commands docs/plugins.md shows, on Node
 * (`npx aeh serve`), Deno (`deno run -A npm:agent-eval-harness/aeh serve`) and Bun (`bunx --bun aeh serve`).
 *
 * Install: `--prefer-offline` takes packages from npm's cache when it has them (a machine that ran `npm ci`
 * has most); the registry is asked only for what the cache lacks.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { call, finished, REPO, SMOKE_KEY } from './runtime-smoke.ts';

const EXAMPLE = join(REPO, 'examples', 'as-dependency');
const EXAMPLE_FILES = ['aeh.config.mjs', 'plugins/js-metric.mjs', 'plugins/ts-metric.ts', 'tsconfig.json'];
const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string; size: number }>;
}

/** What the child processes get: this environment without the service's own settings or the test runner's. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(AEH_|VITEST|npm_package_|npm_lifecycle_)/.test(name)) continue;
    if (['PROJECT_ROOT', 'DASHBOARD_API_KEY', 'PORT', 'HOST', 'NODE_OPTIONS', 'INIT_CWD'].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, env: cleanEnv({}), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const work = mkdtempSync(join(tmpdir(), 'aeh-package-'));
const project = join(work, 'my-evals');
let pack: PackResult;

beforeAll(() => {
  // dist/ is fresh (test/global-setup.ts built it); `prepare` would rebuild it under the suites that run from it
  // in parallel, so the pack skips it.
  [pack] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO)) as PackResult[];
  mkdirSync(project);
  run('npm', ['init', '-y'], project);
  run('npm', ['install', join(work, pack.filename), '--no-audit', '--no-fund', '--prefer-offline'], project);
  for (const file of EXAMPLE_FILES) cpSync(join(EXAMPLE, file), join(project, file), { recursive: true });
}, 240_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('package: the tarball', () => {
  it('holds the compiled JavaScript, its declarations, the CLI and the catalog, and no sources, tests or benches', () => {
    const paths = pack.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/aeh.mjs', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/runtime/node/start.js', 'dist/runtime/deno.js', 'dist/runtime/bun.js', 'dist/validators.generated.js']));
    expect(paths.some((path) => path.startsWith('catalog/') && path.endsWith('.json'))).toBe(true);
    expect(paths.filter((path) => /\.(ts|tsx|mts)$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
    expect(paths.filter((path) => /(^|\/)(test|bench|examples|scripts|docs|\.scratch|\.aeh|node_modules)\//.test(path) || /\.test\./.test(path) || path.startsWith('dist/workerd/') || path === '.env')).toEqual([]);
    expect(pack.unpackedSize).toBeLessThan(8 * 1024 * 1024);
  });

  it('points every export at a file it ships, with types and import conditions', () => {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'agent-eval-harness', 'package.json'), 'utf8'));
    expect(Object.keys(manifest.exports)).toEqual(['.', './plugin', './testing', './package.json']);
    for (const subpath of ['.', './plugin', './testing']) {
      const conditions = manifest.exports[subpath];
      expect(Object.keys(conditions)).toEqual(['types', 'import', 'default']);
      for (const target of Object.values(conditions) as string[]) expect(existsSync(join(project, 'node_modules', 'agent-eval-harness', target)), target).toBe(true);
    }
    expect(manifest.peerDependenciesMeta?.vitest?.optional).toBe(true);
  });

  it('imports from the project: the embedding API and the plugin API as compiled JavaScript', () => {
    const script = "const root = await import('agent-eval-harness'); const plugin = await import('agent-eval-harness/plugin');" +
      "console.log(JSON.stringify({ root: ['createApp', 'parseConfig', 'portablePlugins', 'startNodeService'].filter((name) => typeof root[name] === 'function')," +
      " plugin: ['definePlugin', 'defineMetric', 'pass', 'fail', 'unmeasured', 'defineShim', 'Problem'].filter((name) => typeof plugin[name] === 'function')," +
      " resolved: import.meta.resolve('agent-eval-harness/plugin') }))";
    const loaded = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], project));
    expect(loaded.root).toEqual(['createApp', 'parseConfig', 'portablePlugins', 'startNodeService']);
    expect(loaded.plugin).toEqual(['definePlugin', 'defineMetric', 'pass', 'fail', 'unmeasured', 'defineShim', 'Problem']);
    expect(loaded.resolved).toMatch(/\/node_modules\/agent-eval-harness\/dist\/core\/plugin-api\.js$/);
  });

  it('type-checks the TypeScript plugin against the declarations it ships', () => {
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(() => run(process.execPath, [tsc, '-p', 'tsconfig.json'], project)).not.toThrow();
  });

  it('shows in docs/plugins.md exactly the files this test installs', () => {
    const docs = readFileSync(join(REPO, 'docs', 'plugins.md'), 'utf8');
    for (const file of EXAMPLE_FILES.filter((name) => name !== 'tsconfig.json')) expect(docs, file).toContain(readFileSync(join(EXAMPLE, file), 'utf8').trim());
  });
});

interface Served {
  base: string;
  child: ChildProcess;
  logs(): string;
}

/** Starts `command args` in the project with `--port 0 --json` and reads the address it prints. */
async function serve(command: string, args: string[]): Promise<Served> {
  let logs = '';
  // Its own process group: npx and bunx run the CLI in a child process, and stopping the group stops both.
  const child = spawn(command, [...args, '--port', '0', '--json'], {
    cwd: project,
    detached: true,
    env: cleanEnv({ HOST: '127.0.0.1', DASHBOARD_API_KEY: SMOKE_KEY, AEH_PLUGINS: './plugins/ts-metric.ts', NODE_ENV: 'production', DENO_NO_UPDATE_CHECK: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk) => { logs += chunk; });
  const base = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${command} printed no address within 90 s: ${logs.slice(-1500)}`));
    }, 90_000);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const address = /\{"url":"([^"]+)"\}/.exec(stdout);
      if (address) {
        clearTimeout(timer);
        resolve(address[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${command} exited ${code}: ${stdout}${logs.slice(-1500)}`));
    });
  });
  return { base, child, logs: () => logs };
}

/** Signals the process group `spawn(..., { detached: true })` made for `child`. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is already gone
  }
}

async function stop(served: Served | undefined): Promise<void> {
  const child = served?.child;
  if (!child?.pid) return;
  if (child.exitCode !== null || child.signalCode !== null) return signalGroup(child, 'SIGKILL');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child, 'SIGTERM');
  const force = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
  // npx and bunx may exit before the CLI they started: whatever is left of the group goes now.
  signalGroup(child, 'SIGKILL');
}

const HOUSE_RULES = {
  id: 'house-rules', title: 'House rules', industry: 'Fintech', use_case: 'Customer support', tags: ['smoke'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { t1: 'Thanks for asking: your balance is 42 EUR.' } },
  topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
  tasks: [{ id: 't1', input: 'What is my balance?', metrics: [{ id: 'polite_reply' }, { id: 'word_budget', params: { max_words: 5 } }] }],
};

const RUNTIMES = [
  { name: 'node', command: 'npx', args: ['aeh', 'serve'] },
  { name: 'deno', command: bin('deno'), args: ['run', '-A', 'npm:agent-eval-harness/aeh', 'serve'] },
  { name: 'bun', command: bin('bunx'), args: ['--bun', 'aeh', 'serve'] },
];

for (const runtime of RUNTIMES) {
  describe.skipIf(runtime.name !== 'node' && !existsSync(runtime.command) && !process.env.CI)(`package: aeh serve on ${runtime.name}`, () => {
    let served: Served | undefined;
    beforeAll(async () => {
      served = await serve(runtime.command, runtime.args);
    }, 120_000);
    afterAll(() => stop(served), 30_000);

    it('loads both user plugins, from aeh.config.mjs and AEH_PLUGINS', async () => {
      const info = await call(served!.base, 'GET', '/api/info');
      expect(info.status).toBe(200);
      expect(info.json.runtime.name).toBe(runtime.name);
      const listed = await call(served!.base, 'GET', '/api/plugins');
      const users = listed.json.plugins.filter((plugin: { source: string }) => plugin.source === 'user').map((plugin: { name: string }) => plugin.name);
      expect(users).toEqual(['team-polite-reply', 'team-word-budget']);
    });

    it('lists both user metrics', async () => {
      const metrics = await call(served!.base, 'GET', '/api/v1/metrics');
      expect(metrics.status).toBe(200);
      const ids = metrics.json.items.map((item: { id: string }) => item.id);
      expect(ids).toEqual(expect.arrayContaining(['polite_reply', 'word_budget', 'task_success']));
    });

    it('scores an evaluation with them', async () => {
      const accepted = await call(served!.base, 'POST', '/api/evaluate', { scenario: HOUSE_RULES });
      expect(accepted.status, accepted.text.slice(0, 300)).toBe(202);
      const task = await finished(served!.base, accepted.json.status_url);
      expect(task.status).toBe('succeeded');
      const scored = await call(served!.base, 'GET', `/api/v1/runs/${task.run_id}`);
      expect(scored.json.dimensions.reliability).toBe(0.5);
      expect(scored.json.failures).toEqual([expect.objectContaining({ metric: 'word_budget', code: 'RELIABILITY.WORD_BUDGET', message: 'word_budget: the check failed' })]);
      // defineMetric declared the code; the taxonomy lists it with the plugin that did.
      const taxonomy = await call(served!.base, 'GET', '/api/v1/taxonomy?within=RELIABILITY');
      expect(taxonomy.json.items).toContainEqual(expect.objectContaining({ code: 'RELIABILITY.WORD_BUDGET', plugin: 'team-word-budget' }));
    });
  });
}
