#!/usr/bin/env node
// `npm start`: rebuilds dist/ only when the sources changed, then runs the compiled Node entry in this same
// process (one Node start instead of a prestart process plus the server: start-up time is a goal).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distIsStale, root } from './stale.mjs';

if (distIsStale()) {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0 && build.status !== null) process.exit(build.status);
}
await import(pathToFileURL(join(root, 'dist', 'runtime', 'node.js')).href);
