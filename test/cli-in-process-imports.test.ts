/**
 * What an in-process CLI command loads: it builds the app but never listens, so the HTTP server package
 * (@hono/node-server, ~45 ms CPU of every such command: issue 36) is imported only where a server starts
 * (runtime/node/start.ts `listenNode`; `aeh serve` and `npm start` are tested where they serve).
 */
import { describe, it, expect } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectWithFixtures, spawnCli } from './cli-io.ts';

/** Module hooks (node:module `register`) noting every URL the process loads, one a line, in `AEH_IMPORTS_LOG`. */
const RECORD_LOADS = `import { register } from 'node:module';
register(new URL('./record-hooks.mjs', import.meta.url), { data: process.env.AEH_IMPORTS_LOG });
`;
const RECORD_HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(path) { log = path; }
export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }
`;

describe('cli: in-process commands', () => {
  it('aeh evaluate builds the app in-process without loading @hono/node-server', async () => {
    const cwd = projectWithFixtures();
    writeFileSync(join(cwd, 'record-loads.mjs'), RECORD_LOADS);
    writeFileSync(join(cwd, 'record-hooks.mjs'), RECORD_HOOKS);
    const log = join(cwd, 'imports.log');
    const result = await spawnCli(['evaluate', 'pass.json'], { cwd, env: { AEH_STORAGE: 'memory', AEH_IMPORTS_LOG: log, NODE_OPTIONS: `--import ${pathToFileURL(join(cwd, 'record-loads.mjs')).href}` } });
    expect(result.code, result.stderr).toBe(0);
    const loaded = readFileSync(log, 'utf8').split('\n');
    expect(loaded.some((url) => url.endsWith('/dist/runtime/node/start.js')), 'the app was built in this process').toBe(true);
    expect(loaded.filter((url) => url.includes('/@hono/node-server/'))).toEqual([]);
  }, 120_000);
});
