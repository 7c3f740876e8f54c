/**
 * Every runtime for real: Node (compiled dist), Deno, Bun and workerd from their npm packages, each started with
 * its own entry file and smoke-tested over HTTP; all of them verify a certificate produced on Node (workerd from
 * its KV namespace, seeded with the run: see test/runtime-workerd.ts).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startService, call, finished, SMOKE_SCENARIO, REPO, type RunningService } from './runtime-smoke.ts';
import { WORKERD, startSeededWorkerd, workerdCases, type RunningWorkerd } from './runtime-workerd.ts';

const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);
interface RuntimeUnderTest {
  name: string;
  command: string;
  args: string[];
  /** Starts it another way than `command args` with PROJECT_ROOT shared with Node. */
  start?(): Promise<RunningService>;
  /** Its own cases, beside the shared smoke. */
  cases?(service: () => RunningService): void;
  /** Missing in CI is a failure, not a skip. */
  requiredInCi?: boolean;
}
const RUNTIMES: RuntimeUnderTest[] = [
  { name: 'node', command: process.execPath, args: ['dist/runtime/node.js'] },
  { name: 'deno', command: bin('deno'), args: ['run', '-A', '--quiet', 'runtime/deno.ts'] },
  { name: 'bun', command: bin('bun'), args: ['runtime/bun.ts'] },
  {
    name: 'workerd',
    command: WORKERD,
    args: [],
    start: () => startSeededWorkerd(join(root, '.aeh'), producedRun, nodeJwks),
    cases: (service) => workerdCases(service as () => RunningWorkerd),
    requiredInCi: true,
  },
];

const root = mkdtempSync(join(tmpdir(), 'aeh-runtimes-'));
let producedRun: string;
/** Node's published key set, for runtimes that do not share its data directory (workerd). */
let nodeJwks: string;

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: REPO, stdio: 'inherit' });
  // A certificate produced on Node, in a data directory every runtime below reads.
  const node = await startService(process.execPath, ['dist/runtime/node.js'], { PROJECT_ROOT: root });
  try {
    const accepted = await call(node.base, 'POST', '/api/evaluate', { scenario: SMOKE_SCENARIO });
    expect(accepted.status).toBe(202);
    const task = await finished(node.base, accepted.json.status_url);
    expect(task.status).toBe('succeeded');
    producedRun = task.run_id;
    nodeJwks = (await call(node.base, 'GET', '/.well-known/jwks.json', undefined, null)).text;
  } finally {
    await node.stop();
  }
}, 120_000);

for (const runtime of RUNTIMES) {
  describe.skipIf(!existsSync(runtime.command) && !(runtime.requiredInCi && process.env.CI))(`runtime: ${runtime.name}`, () => {
    let service: RunningService;
    beforeAll(async () => {
      service = await (runtime.start?.() ?? startService(runtime.command, runtime.args, { PROJECT_ROOT: root }));
    }, 90_000);
    afterAll(async () => {
      await service?.stop();
    });

    it('answers health publicly and info with a key', async () => {
      expect((await call(service.base, 'GET', '/healthz', undefined, null)).status).toBe(200);
      const info = await call(service.base, 'GET', '/api/info');
      expect(info.status).toBe(200);
      expect(info.json.runtime.name).toBe(runtime.name);
      expect((await call(service.base, 'GET', '/api/info', undefined, null)).status).toBe(401);
    });

    it('verifies a certificate produced on Node', async () => {
      const verified = await call(service.base, 'GET', `/api/v1/verify/${producedRun}`, undefined, null);
      expect(verified.json?.valid, verified.text.slice(0, 300)).toBe(true);
    });

    it('searches the catalog', async () => {
      const found = await call(service.base, 'GET', '/api/scenarios?limit=5');
      expect(found.status).toBe(200);
      expect(found.json.total).toBeGreaterThanOrEqual(40);
    });

    it('runs an evaluation to a passing, verifiable certificate', async () => {
      const accepted = await call(service.base, 'POST', '/api/evaluate', { scenario: SMOKE_SCENARIO });
      expect(accepted.status).toBe(202);
      const task = await finished(service.base, accepted.json.status_url);
      expect(task.status).toBe('succeeded');
      const run = await call(service.base, 'GET', `/api/v1/runs/${task.run_id}`);
      expect(run.json.compliance.status).toBe('pass');
      expect((await call(service.base, 'GET', `/api/v1/verify/${task.run_id}`, undefined, null)).json.valid).toBe(true);
    });

    runtime.cases?.(() => service);
  });
}
