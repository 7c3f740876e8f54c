/**
 * Every runtime for real: Node (compiled dist), Deno and Bun from their npm packages, each started with its
 * own entry file and smoke-tested over HTTP; all of them verify a certificate produced on Node.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startService, call, finished, SMOKE_SCENARIO, REPO, type RunningService } from './runtime-smoke.ts';

const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);
const RUNTIMES: Array<{ name: string; command: string; args: string[] }> = [
  { name: 'node', command: process.execPath, args: ['dist/runtime/node.js'] },
  { name: 'deno', command: bin('deno'), args: ['run', '-A', '--quiet', 'runtime/deno.ts'] },
  { name: 'bun', command: bin('bun'), args: ['runtime/bun.ts'] },
];

const root = mkdtempSync(join(tmpdir(), 'aeh-runtimes-'));
let producedRun: string;

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
  } finally {
    await node.stop();
  }
}, 120_000);

for (const runtime of RUNTIMES) {
  describe.skipIf(!existsSync(runtime.command))(`runtime: ${runtime.name}`, () => {
    let service: RunningService;
    beforeAll(async () => {
      service = await startService(runtime.command, runtime.args, { PROJECT_ROOT: root });
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
  });
}
