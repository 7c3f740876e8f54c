// Shared helpers for the benchmarks: free ports, child services, autocannon runs, medians.
// Benchmarks are run by hand (`node bench/<name>.mjs`) and print ratios against a baseline measured in the
// same run, on the same machine, so the numbers compare like with like.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A key for benchmark services (never a real one). */
export const BENCH_KEY = 'b'.repeat(64);

/** A TCP port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A fresh, empty PROJECT_ROOT. */
export function freshRoot(prefix = 'aeh-bench-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Our environment minus anything that would configure the service, plus `extra`. */
export function serviceEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AEH_|DASHBOARD_|OIDC_|PORT$|HOST$|PROJECT_ROOT$|NODE_OPTIONS$)/.test(name)));
  return { ...env, ...extra };
}

/** Compiles dist/ if the sources changed (what `npm start` does first), so timings do not include a compile. */
/** Imports a module of the compiled service (`dist/<path>`), as `npm start` runs it. */
export const importDist = (path) => import(pathToFileURL(join(repoRoot, 'dist', path)).href);

export function ensureBuilt() {
  const result = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), '--if-stale'], { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('build failed');
}

/** Resolves once `url` answers 2xx; polls every `intervalMs`. */
export async function waitForOk(url, { timeoutMs = 60_000, intervalMs = 5, headers = {} } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * Spawns a process in its own process group (so `stop()` reaches node under `npm start`'s `sh -c`), keeping
 * its output for error messages.
 */
export function spawnProcess(command, args, { env, cwd = repoRoot } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async stop() {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return exited; // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }, 5000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** CPU time (user + system, ms) a process has used so far, from /proc; null where there is no /proc. */
export function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

/**
 * Runs autocannon and returns its result; refuses runs with errors or non-2xx answers. With `pid`, also the
 * server's CPU time per request, which the load of other processes on the machine distorts far less than req/s.
 */
export async function load({ url, headers = {}, connections = 50, duration = 10, title, pid }) {
  const cpuBefore = pid ? cpuMsOf(pid) : null;
  const result = await autocannon({ url, headers, connections, duration, title });
  const cpuAfter = pid ? cpuMsOf(pid) : null;
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts — the run does not measure what it claims`);
  return {
    title,
    requestsPerSecond: result.requests.average,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    total: result.requests.total,
    cpuMicrosPerRequest: cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / result.requests.total : null,
  };
}

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Formats a number with thousands separators. */
export const fmt = (value, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The value after `--<name>` on the command line, else `fallback` (every bench script's options). */
export function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

/** `argument` as a number. */
export const numberArgument = (name, fallback) => Number(argument(name, fallback));

/** Runs a command to completion; its stdout, or an error with its output when it fails. */
export function runOrThrow(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/**
 * Checks `base` out in a temporary worktree beside this one (sharing node_modules), builds both trees, runs
 * `body(tree)` and removes the worktree: how a bench measures its baseline commit in the same run.
 */
export async function withBaseTree(base, body) {
  const tree = mkdtempSync(join(tmpdir(), 'aeh-base-'));
  runOrThrow('git', ['worktree', 'add', '--detach', tree, base], repoRoot);
  try {
    if (!existsSync(join(tree, 'node_modules'))) symlinkSync(join(repoRoot, 'node_modules'), join(tree, 'node_modules'));
    for (const root of [tree, repoRoot]) runOrThrow(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], root);
    return await body(tree);
  } finally {
    runOrThrow('git', ['worktree', 'remove', '--force', tree], repoRoot);
    rmSync(tree, { recursive: true, force: true });
  }
}

/** A τ-bench data directory as the tau plugin reads one (plugins/shims/tau/data.ts `TauDataDir`), from local files. */
export function tauDataDir(dir) {
  const files = { readFile: (path) => readFile(path), stat: async (path) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };
  return { dir: resolve(dir), files };
}

/** The promptfoo release the comparisons run (bench/concurrency.mjs, bench/per-run.mjs). */
export const PROMPTFOO_VERSION = '0.123.1';

/** Node 24's binary (promptfoo needs it), fetched and cached once by scripts/test-node24.mjs. */
export function node24() {
  const binary = join(repoRoot, 'node_modules', '.cache', 'node-24', 'package', 'bin', 'node');
  if (!existsSync(binary)) {
    console.log('  fetching Node 24 for promptfoo (scripts/test-node24.mjs caches it)…');
    spawnSync(process.execPath, [join(repoRoot, 'scripts', 'test-node24.mjs'), '--fetch-only'], { stdio: 'ignore' });
  }
  if (!existsSync(binary)) throw new Error('Node 24 is not available (node scripts/test-node24.mjs --fetch-only), or pass --no-promptfoo');
  return binary;
}

/** promptfoo installed once into bench/.scratch/promptfoo (gitignored): its folder and the path of a file in its dist/src. */
export function promptfooInstall(file) {
  const dir = join(repoRoot, 'bench', '.scratch', 'promptfoo');
  const main = join(dir, 'node_modules', 'promptfoo', 'dist', 'src', file);
  if (!existsSync(main)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name":"promptfoo-bench","private":true}\n');
    console.log(`  installing promptfoo@${PROMPTFOO_VERSION} into bench/.scratch/promptfoo (once)…`);
    execFileSync('npm', ['install', `promptfoo@${PROMPTFOO_VERSION}`, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, stdio: 'ignore' });
  }
  return { dir, main };
}

/**
 * Launches a suite (`POST /api/v1/suites` with `body`) through `call(method, path, body) -> {status, json}` and polls
 * every 10 ms until it has finished and its certificate is issued; the suite as the API then answers it.
 */
export async function runSuiteToCertificate(call, body) {
  const accepted = await call('POST', '/api/v1/suites', body);
  if (accepted.status !== 202) throw new Error(`the suite was refused: ${accepted.status} ${JSON.stringify(accepted.json).slice(0, 500)}`);
  let suite;
  do {
    await new Promise((done) => setTimeout(done, 10));
    suite = (await call('GET', `/api/v1/suites/${accepted.json.suite_id}`)).json;
  } while (!(suite.status === 'finished' && suite.certificate?.status !== 'pending'));
  return suite;
}
