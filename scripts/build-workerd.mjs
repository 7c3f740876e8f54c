#!/usr/bin/env node
// Builds the workerd / Cloudflare Workers bundle: runtime/workerd.ts and everything it imports, bundled by esbuild
// into dist/workerd/worker.js, with two modules generated at build time because workerd has no file system and
// forbids code generation:
//   aeh:precompiled-validators  dist/validators.generated.js (scripts/precompile-validators.mjs, run by
//                               scripts/build.mjs): ajv standalone code for every schema in use
//   aeh:bundled-catalog         every JSON document of catalog/, as { path, text }
//   aeh:sha3-wasm               hash-wasm's compiled Keccak (dist/workerd/sha3.wasm, a module of the config):
//                               workerd has no SHA3 and compiles no WebAssembly from bytes at run time
// Then writes dist/workerd/config.capnp, a local deployment for `workerd serve --experimental`: the worker, a
// KV namespace (workerd's bundled KV Worker, SQLite on disk) bound as AEH_KV, and a cron trigger every minute
// (workerd's bundled cron Worker) that calls the worker's `scheduled` handler. The const `test` adds the sockets
// and test clocks the runtime tests use. Usage:
//   node scripts/build-workerd.mjs
//   mkdir -p .aeh/workerd/kv .aeh/workerd/blobs .aeh/workerd/cron
//   DASHBOARD_API_KEY=$(openssl rand -hex 32) npx workerd serve --experimental dist/workerd/config.capnp
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, 'dist', 'workerd');
/** The Workers compatibility date the bundle is written for. */
export const COMPATIBILITY_DATE = '2025-09-01';
/** The KV namespace id the local config's AEH_KV binding uses (the bundled KV Worker's `props.namespace`). */
export const KV_NAMESPACE = 'aeh';
/** Variables that are not configuration on workerd: no file system, fixed storage, the KV binding itself. */
const NOT_FORWARDED = new Set(['AEH_KV', 'AEH_STORAGE', 'AEH_DATA_DIR', 'PROJECT_ROOT']);

function filesBelow(dir, test) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

/** Every environment variable the core and the plugins read (names in `env.X` or quoted), for the config. */
export function variableNames() {
  const names = new Set();
  const pattern = /(?:env\.|env\[['"]|['"`])((?:AEH|OIDC|DASHBOARD|AWS)_[A-Z0-9_]*[A-Z0-9])\b/g;
  for (const folder of ['core', 'plugins']) {
    for (const file of filesBelow(join(ROOT, folder), (name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))) {
      for (const match of readFileSync(file, 'utf8').matchAll(pattern)) if (!NOT_FORWARDED.has(match[1])) names.add(match[1]);
    }
  }
  return [...names].sort();
}

/** The catalog's documents, with paths relative to the repository (`catalog/finance/x.json`). */
function catalogModule() {
  const documents = filesBelow(join(ROOT, 'catalog'), (name) => name.endsWith('.json')).map((file) => ({
    path: relative(ROOT, file).split(sep).join('/'),
    text: readFileSync(file, 'utf8'),
  }));
  return `export default ${JSON.stringify(documents)};\n`;
}

/**
 * hash-wasm's SHA-3 WebAssembly binary, taken from the base64 its package embeds, and checked against
 * node:crypto (FIPS 202 test vectors would say the same) before it goes into a bundle.
 */
export function sha3WasmBinary() {
  const require = createRequire(import.meta.url);
  const source = readFileSync(join(dirname(require.resolve('hash-wasm/package.json')), 'dist', 'sha3.umd.min.js'), 'utf8');
  const embedded = /name:"sha3",data:"([A-Za-z0-9+/=]+)"/.exec(source);
  if (!embedded) throw new Error('hash-wasm: no embedded sha3 binary found in dist/sha3.umd.min.js (package layout changed?)');
  const binary = Buffer.from(embedded[1], 'base64');
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(binary), {});
  const input = Buffer.from('abc'.repeat(12_000));
  exports.Hash_Init(256);
  for (let offset = 0; offset < input.length; offset += 16 * 1024) {
    const part = input.subarray(offset, offset + 16 * 1024);
    new Uint8Array(exports.memory.buffer, exports.Hash_GetBuffer(), part.length).set(part);
    exports.Hash_Update(part.length);
  }
  exports.Hash_Final(0x06);
  const digest = Buffer.from(new Uint8Array(exports.memory.buffer, exports.Hash_GetBuffer(), 32)).toString('hex');
  if (digest !== createHash('sha3-256').update(input).digest('hex')) throw new Error('hash-wasm: the sha3 binary does not compute SHA3-256');
  return binary;
}

/** Resolves the build's virtual modules. */
function generatedModules(validators) {
  return {
    name: 'aeh-generated',
    setup(esbuild) {
      // A module of the workerd config (a compiled WebAssembly.Module), not bundled JavaScript.
      esbuild.onResolve({ filter: /^aeh:sha3-wasm$/ }, () => ({ path: './sha3.wasm', external: true }));
      esbuild.onResolve({ filter: /^aeh:bundled-catalog$/ }, () => ({ path: 'bundled-catalog', namespace: 'aeh' }));
      esbuild.onLoad({ filter: /.*/, namespace: 'aeh' }, () => ({ contents: catalogModule(), loader: 'js' }));
      esbuild.onResolve({ filter: /^aeh:precompiled-validators$/ }, () => ({ path: validators }));
    },
  };
}

/**
 * Bundles the worker into `outDir/worker.js`, after `scripts/build.mjs --if-stale` (which writes the precompiled
 * validators). Returns the bundle's path and size.
 */
export async function buildWorker({ outDir = OUT_DIR, log = console.error } = {}) {
  const compiled = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (compiled.status !== 0 && compiled.status !== 2) throw new Error(`scripts/build.mjs failed: ${compiled.stderr}`);
  // On Node a missing validator is compiled at run time; workerd cannot, so a failed precompilation fails here.
  if (/could not precompile validators/.test(compiled.stderr)) throw new Error(`scripts/build.mjs could not precompile the validators, and workerd cannot compile them at run time:\n${compiled.stderr}`);
  const validators = join(ROOT, 'dist', 'validators.generated.js');
  if (!existsSync(validators)) throw new Error(`${validators} is missing: scripts/build.mjs could not precompile the validators (${compiled.stderr.trim()})`);
  const outfile = join(outDir, 'worker.js');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'sha3.wasm'), sha3WasmBinary());
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'runtime', 'workerd.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    mainFields: ['browser', 'module', 'main'],
    tsconfig: join(ROOT, 'tsconfig.json'),
    plugins: [generatedModules(validators)],
    logLevel: 'warning',
    metafile: true,
    legalComments: 'none',
  });
  for (const warning of result.warnings) log(`build-workerd: ${warning.text}`);
  const bytes = result.metafile.outputs[relative(ROOT, outfile).split(sep).join('/')]?.bytes ?? 0;
  return { outfile, bytes };
}

const quote = (text) => JSON.stringify(text);

function workerService() {
  const bindings = [
    ...variableNames().map((name) => `(name = ${quote(name)}, fromEnvironment = ${quote(name)})`),
    '(name = "AEH_STORAGE", text = "cloudflare-kv")',
    `(name = "AEH_KV", kvNamespace = (name = "kv", props = (json = ${quote(JSON.stringify({ namespace: KV_NAMESPACE }))})))`,
  ];
  return `(name = "aeh", worker = (
      modules = [(name = "worker.js", esModule = embed "worker.js"), (name = "sha3.wasm", wasm = embed "sha3.wasm")],
      compatibilityDate = ${quote(COMPATIBILITY_DATE)},
      bindings = [
        ${bindings.join(',\n        ')},
      ],
    ))`;
}

function services({ test }) {
  const testClock = test ? ',\n        (name = "TEST_CLOCK", json = "true")' : '';
  return `[
    ${workerService()},
    # workerd's bundled KV Worker: a SQLite-backed Durable Object per namespace, values over 64 KiB in BLOBS.
    (name = "kv", worker = (
      modules = [(name = "kv.js", bundled = "/workerd/kv.js")],
      compatibilityDate = ${quote(COMPATIBILITY_DATE)},
      durableObjectNamespaces = [(className = "KVNamespace", uniqueKey = "aeh-kv", enableSql = true)],
      durableObjectStorage = (localDisk = "kv-store"),
      bindings = [
        (name = "SHARD", durableObjectNamespace = "KVNamespace"),
        (name = "BLOBS", service = "kv-blobs")${testClock},
      ],
    )),
    (name = "kv-store", disk = (path = ".aeh/workerd/kv", writable = true)),
    (name = "kv-blobs", disk = (path = ".aeh/workerd/blobs", writable = true)),
    # workerd's bundled cron Worker: calls the scheduled() handler of the service bound as AEH every minute.
    (name = "cron", worker = (
      modules = [(name = "cron.js", bundled = "/workerd/cron.js")],
      compatibilityDate = ${quote(COMPATIBILITY_DATE)},
      compatibilityFlags = ["service_binding_extra_handlers"],
      durableObjectNamespaces = [(className = "Schedule", uniqueKey = "aeh-cron", enableSql = true)],
      durableObjectStorage = (localDisk = "cron-store"),
      bindings = [
        (name = "SCHEDULE", durableObjectNamespace = "Schedule"),
        (name = "CRONS", json = ${quote(JSON.stringify({ AEH: ['* * * * *'] }))}),
        (name = "AEH", service = "aeh")${testClock},
      ],
    )),
    (name = "cron-store", disk = (path = ".aeh/workerd/cron", writable = true)),
  ]`;
}

/** The workerd config: `config` serves 127.0.0.1:8787; `test` adds raw access to the KV namespace and the cron clock. */
export function workerdConfig() {
  const kvProps = quote(JSON.stringify({ namespace: KV_NAMESPACE }));
  return `# Generated by scripts/build-workerd.mjs. workerd serve --experimental dist/workerd/config.capnp [config|test]
# Paths are relative to the directory workerd runs in; override them with --directory-path kv-store=<dir> etc.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = ${services({ test: false })},
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "aeh")],
);

# For tests: the KV namespace's own protocol on "kv-admin" (what \`wrangler kv\` speaks, to seed it), and
# POST /clock?advance=<ms> on "cron-admin" to fire the cron trigger now.
const test :Workerd.Config = (
  services = ${services({ test: true })},
  sockets = [
    (name = "http", address = "127.0.0.1:8787", http = (), service = "aeh"),
    (name = "kv-admin", address = "127.0.0.1:8788", http = (), service = (name = "kv", props = (json = ${kvProps}))),
    (name = "cron-admin", address = "127.0.0.1:8789", http = (), service = "cron"),
  ],
);
`;
}

/** Bundles the worker and writes the config next to it. */
export async function buildWorkerd(options = {}) {
  const outDir = options.outDir ?? OUT_DIR;
  mkdirSync(outDir, { recursive: true });
  const bundle = await buildWorker({ ...options, outDir });
  const config = join(outDir, 'config.capnp');
  writeFileSync(config, workerdConfig());
  return { ...bundle, config };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { outfile, bytes, config } = await buildWorkerd();
    console.log(`build-workerd: ${relative(ROOT, outfile)} (${(bytes / 1024).toFixed(0)} KiB) and ${relative(ROOT, config)}`);
  } catch (error) {
    console.error(`build-workerd: ${error.message}`);
    process.exit(1);
  }
}
