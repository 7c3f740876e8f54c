/**
 * What a start loads before it answers (issue 36: most of a start is loading modules). The compiled entry serves
 * /healthz and a catalog search without the modules only a run, an import, a report or a SQL world needs; each
 * loads on first use (their own tests cover that use): SQLite (sql.js) and the SQL shim's behaviour, the
 * evaluation runner (units, worlds, scoring) and submission planning, csv-parse, the τ-bench task converter, the
 * HTML reports, run comparisons, spec-to-eval's persistence, jose's JWT and remote key-set modules (handoffs,
 * OIDC where it is configured).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { call, REPO, startService, type RunningService } from './runtime-smoke.ts';

/** Module hooks noting every URL the main thread loads, one a line, in `AEH_IMPORTS_LOG` (workers load their own). */
const RECORD_LOADS = `import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) register(new URL('./record-hooks.mjs', import.meta.url), { data: process.env.AEH_IMPORTS_LOG });
`;
const RECORD_HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(path) { log = path; }
export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }
`;

/** Loaded by a run, an import or a SQL world, never by a start that only answers health and search. */
const NOT_AT_START = ['/node_modules/sql.js/', '/dist/plugins/shims/sql/shim.js', '/dist/plugins/evaluation/running/runner.js', '/dist/plugins/evaluation/units/unit.js', '/dist/plugins/evaluation/scoring/score-metrics.js', '/node_modules/csv-parse/', '/dist/plugins/datasets/parse.js', '/dist/plugins/shims/tau/tasks.js', '/dist/plugins/evaluation/submission/submit.js', '/dist/plugins/reports/html.js', '/dist/plugins/reports/suite-report.js', '/jose/dist/webapi/jwks/remote.js', '/jose/dist/webapi/jwt/verify.js', '/jose/dist/webapi/jwt/sign.js', '/dist/plugins/compare/diff.js', '/dist/plugins/compare/suites.js', '/dist/plugins/spec-to-eval/persist.js'];

describe('runtime: what a start loads', () => {
  let service: RunningService | undefined;
  afterAll(async () => service?.stop());

  it('answers /healthz and a catalog search without SQLite, the runner, csv-parse, the τ-bench converter or the report renderer', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-start-imports-'));
    writeFileSync(join(root, 'record-loads.mjs'), RECORD_LOADS);
    writeFileSync(join(root, 'record-hooks.mjs'), RECORD_HOOKS);
    const log = join(root, 'imports.log');
    service = await startService(process.execPath, [join(REPO, 'dist', 'runtime', 'node.js')], { PROJECT_ROOT: root, AEH_IMPORTS_LOG: log, NODE_OPTIONS: `--import ${pathToFileURL(join(root, 'record-loads.mjs')).href}` });
    const search = await call(service.base, 'GET', '/api/scenarios?limit=1');
    expect(search.status).toBe(200);
    const loaded = readFileSync(log, 'utf8').split('\n');
    expect(loaded.some((url) => url.endsWith('/dist/plugins/shims/sql/index.js')), 'the SQL shim is declared at start').toBe(true);
    expect(loaded.filter((url) => NOT_AT_START.some((part) => url.includes(part)))).toEqual([]);
  }, 120_000);
});
