#!/usr/bin/env node
// This workplace's npm registry serves only the Linux builds of platform-specific packages (deno, workerd,
// msgpackr-extract…), so `npm install` writes lock entries whose optionalDependencies name packages the lock
// does not contain, and `npm ci` then refuses the lock as "out of sync". This drops optional dependencies
// that have no entry in the lock; they are other platforms' binaries that could not be installed here anyway.
// Run after `npm install <pkg>`: node scripts/prune-lock.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const present = new Set(Object.keys(lock.packages));
let pruned = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const name of Object.keys(entry.optionalDependencies)) {
    // Resolution walks up node_modules folders, as npm does.
    const candidates = [];
    let base = location;
    for (;;) {
      candidates.push(`${base ? `${base}/` : ''}node_modules/${name}`);
      const at = base.lastIndexOf('node_modules/');
      if (at < 0) break;
      base = base.slice(0, at).replace(/\/$/, '');
    }
    if (!candidates.some((candidate) => present.has(candidate))) {
      delete entry.optionalDependencies[name];
      pruned++;
    }
  }
  if (Object.keys(entry.optionalDependencies).length === 0) delete entry.optionalDependencies;
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`prune-lock: removed ${pruned} optional dependencies this registry does not serve`);
