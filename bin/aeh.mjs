#!/usr/bin/env node
// `npx aeh …`: runs the compiled CLI from dist/ (built by `npm install` in a clone, shipped in the npm package),
// rebuilding first when the sources changed (a clone only: the package has no scripts/); falls back to running
// the TypeScript sources through tsx when there is no compiler output. Deno and Bun run it too
// (`deno run -A npm:agent-eval-harness/aeh`, `bunx --bun aeh`); they never rebuild, their execPath is no Node.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, 'scripts', 'build.mjs');
const onNode = !process.versions.bun && !process.versions.deno;
if (onNode && existsSync(build) && existsSync(join(root, 'node_modules', 'typescript'))) {
  // The staleness check here, the compiler in a process of its own only when needed: every command starts
  // one Node process, not two (tests run the CLI hundreds of times).
  const { distIsStale } = await import(pathToFileURL(join(root, 'scripts', 'stale.mjs')).href);
  if (distIsStale()) spawnSync(process.execPath, [build], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
const compiled = join(root, 'dist', 'cli', 'main.js');
let main;
if (existsSync(compiled)) ({ main } = await import(pathToFileURL(compiled).href));
else {
  const { tsImport } = await import('tsx/esm/api');
  ({ main } = await tsImport(pathToFileURL(join(root, 'cli', 'main.ts')).href, import.meta.url));
}
const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
process.exitCode = code;
