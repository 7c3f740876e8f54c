#!/usr/bin/env node
// Compiles the service to dist/ with tsc (tsconfig.build.json: JavaScript and .d.ts declarations, what the npm
// package's `exports` point at), then precompiles the JSON Schema validators
// (scripts/precompile-validators.mjs) into dist/validators.generated.js.
// `--if-stale` skips the compile when dist/ is newer than every source file (scripts/stale.mjs).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { distIsStale, root, stamp } from './stale.mjs';

if (process.argv.includes('--if-stale') && !distIsStale()) process.exit(0);

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  console.error('build: typescript is not installed; run `npm install` first');
  process.exit(1);
}
// tsc never deletes: a source removed or renamed would leave its old module in dist/, where the validator scan
// below (and anyone importing by path) could still find it. The compiled trees start empty; dist/workerd (its
// own build) is left alone.
for (const tree of ['cli', 'core', 'plugins', 'runtime', 'testing', 'index.js', 'index.d.ts']) rmSync(join(root, 'dist', tree), { recursive: true, force: true });
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
    catalogOut: join(dist, 'validators.catalog.generated.js'),
    load: (path) => import(pathToFileURL(join(dist, `${path}.js`)).href),
    log: (message) => console.error(message),
  });
  if (!process.argv.includes('--if-stale')) console.log(`build: precompiled ${count} JSON Schema validators into dist/validators.generated.js`);
} catch (error) {
  // The service still runs on Node (validators compile at run time); edge bundles would not.
  console.error(`build: could not precompile validators: ${error.stack ?? error}`);
}
writeFileSync(stamp, new Date().toISOString());
