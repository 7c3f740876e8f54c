#!/usr/bin/env node
// Compiles the service to dist/ with tsc (tsconfig.build.json), then precompiles the JSON Schema validators
// (scripts/precompile-validators.mjs) into dist/validators.generated.js.
// `--if-stale` (used by `prestart`) skips the compile when dist/ is newer than every source file, so
// `npm start` on an unchanged checkout goes straight to `node dist/runtime/node.js`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['core', 'plugins', 'runtime', 'cli', 'types', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestSource(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestSource(join(path, entry)));
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(stamp)) {
  const built = statSync(stamp).mtimeMs;
  if (SOURCES.every((source) => newestSource(join(root, source)) <= built)) process.exit(0);
}

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  console.error('build: typescript is not installed; run `npm install` first');
  process.exit(1);
}
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
// tsc exits 2 when it reported type errors but still emitted every file: the service can run (the type errors
// fail `npm test`, which is where they belong), so `npm start` warns instead of refusing to start.
if (result.status === 2) console.error('build: type errors above; dist/ was emitted anyway (run `npm test`)');
else if (result.status !== 0) process.exit(result.status ?? 1);
// Ahead-of-time ajv validators for every schema in use (edge runtimes forbid code generation).
try {
  const { precompileValidators } = await import('./precompile-validators.mjs');
  const dist = join(root, 'dist');
  const { count } = await precompileValidators({
    root: dist,
    out: join(dist, 'validators.generated.js'),
    load: (path) => import(pathToFileURL(join(dist, `${path}.js`)).href),
    log: (message) => console.error(message),
  });
  if (!process.argv.includes('--if-stale')) console.log(`build: precompiled ${count} JSON Schema validators into dist/validators.generated.js`);
} catch (error) {
  // The service still runs on Node (validators compile at run time); edge bundles would not.
  console.error(`build: could not precompile validators: ${error.stack ?? error}`);
}
writeFileSync(stamp, new Date().toISOString());
