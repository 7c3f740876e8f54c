import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { testApp, type TestApp } from './helpers.ts';
import { finishFixtureRun } from './certification-fixtures.ts';
import { SIDECARS } from '../core/domain/runs.ts';

const run = promisify(execFile);
const AEH = join(import.meta.dirname, '..', 'bin', 'aeh.mjs');

async function aeh(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [AEH, ...args], { env: { ...process.env, ...env }, timeout: 180_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failure.code === 'number' ? failure.code : -1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** A service on the fs store (so runs are real files) and its JWKS written to a file. */
async function fsService(root: string): Promise<{ t: TestApp; runDir: (id: string) => string; jwksFile: string }> {
  const t = await testApp({ env: { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh') } });
  const jwksFile = join(root, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify((await t.json('GET', '/.well-known/jwks.json', { key: null })).body));
  return { t, runDir: (id) => join(root, '.aeh', 'runs', id), jwksFile };
}

// Each call is a fresh `node bin/aeh.mjs`, which first rebuilds dist/ when the sources changed: generous limits.
describe('certification: offline verifier (aeh verify, child process)', { timeout: 240_000 }, () => {
  let root: string;
  let service: Awaited<ReturnType<typeof fsService>>;
  let runId: string;
  let http: ServerType;
  let base: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'aeh-offline-'));
    service = await fsService(root);
    runId = await finishFixtureRun(service.t, { agentSignatures: [{ identity: 'agent:support', jws: 'a.b.c', task_id: 't1', verified: true }] });
    http = await new Promise<ServerType>((resolve) => {
      const server = serve({ fetch: service.t.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(server));
    });
    const address = http.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => http?.close(resolve));
    await service.t.app.close();
    rmSync(root, { recursive: true, force: true });
  });

  const certificateOf = (id: string) => join(service.runDir(id), 'certificate.json');
  const traceOf = (id: string) => join(service.runDir(id), 'trace.jsonl');

  it('accepts a certificate produced by the service (exit 0) with a JWKS file or URL', async () => {
    const fromFile = await aeh(['verify', certificateOf(runId), '--trace', traceOf(runId), '--jwks', service.jwksFile]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toMatch(/ok +signatures +2 signature\(s\) verified in order \(Evaluator → Agent\)/);
    expect(fromFile.stdout.trim().split('\n').pop()).toBe('valid');
    const fromUrl = await aeh(['verify', certificateOf(runId), '--trace', traceOf(runId), '--jwks', `${base}/.well-known/jwks.json`, '--json']);
    expect(fromUrl.code, fromUrl.stderr).toBe(0);
    const report = JSON.parse(fromUrl.stdout);
    expect(report).toMatchObject({ valid: true, status: 'valid' });
    expect(report.checks.map((check: { id: string }) => check.id)).toEqual(['schema', 'trace_hash', 'evidence_ledger', 'signatures', 'expiry']);
  });

  it('names the failed check and exits 1 for a tampered trace or sidecar, or a missing sidecar', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'aeh-offline-copy-'));
    cpSync(service.runDir(runId), copy, { recursive: true });
    const trace = readFileSync(join(copy, 'trace.jsonl'));
    trace[10] = trace[10]! ^ 1;
    writeFileSync(join(copy, 'trace.jsonl'), trace);
    const tampered = await aeh(['verify', join(copy, 'certificate.json'), '--trace', join(copy, 'trace.jsonl'), '--jwks', service.jwksFile]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('FAIL trace_hash');
    expect(tampered.stdout).toContain('invalid (failed: trace_hash)');

    writeFileSync(join(copy, SIDECARS.scores), '{"index":1}');
    rmSync(join(copy, SIDECARS.failures));
    const ledger = await aeh(['verify', join(copy, 'certificate.json'), '--trace', traceOf(runId), '--sidecars', copy, '--jwks', service.jwksFile]);
    expect(ledger.code).toBe(1);
    expect(ledger.stdout).toMatch(/FAIL evidence_ledger +failures\.json is missing; scores\.json hashes to/);
  });

  it('exits 1 against a key set that is not the service\'s, and for a missing required role', async () => {
    const other = join(root, 'other-jwks.json');
    writeFileSync(other, JSON.stringify({ keys: [] }));
    const foreign = await aeh(['verify', certificateOf(runId), '--trace', traceOf(runId), '--jwks', other]);
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toContain('is not in the published key set');
    const unaudited = await aeh(['verify', certificateOf(runId), '--trace', traceOf(runId), '--jwks', service.jwksFile, '--require-role', 'Auditor']);
    expect(unaudited.code).toBe(1);
    expect(unaudited.stdout).toContain('FAIL required_roles');
  });

  it('exits 2 for an expired certificate', async () => {
    const expired = await aeh(['verify', certificateOf(runId), '--trace', traceOf(runId), '--jwks', service.jwksFile, '--now', new Date(Date.now() + 91 * 86_400_000).toISOString()]);
    expect(expired.code).toBe(2);
    expect(expired.stdout).toContain('FAIL expiry');
  });

  it('exits 3 with usage for bad invocations and unreadable inputs', async () => {
    expect((await aeh(['verify', certificateOf(runId)])).code).toBe(3);
    expect((await aeh(['verify', join(root, 'nope.json'), '--trace', traceOf(runId), '--jwks', service.jwksFile])).code).toBe(3);
    const unknown = await aeh(['nope']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('unknown command "nope"');
  });

  it('keeps old certificates verifying after `aeh keys rotate` (online and offline)', async () => {
    const rotationRoot = mkdtempSync(join(tmpdir(), 'aeh-rotate-'));
    const before = await fsService(rotationRoot);
    const oldRun = await finishFixtureRun(before.t);
    await before.t.app.close();
    const rotated = await aeh(['keys', 'rotate', '--json'], { PROJECT_ROOT: rotationRoot, AEH_DATA_DIR: join(rotationRoot, '.aeh') });
    expect(rotated.code, rotated.stderr).toBe(0);
    const { kid, retired } = JSON.parse(rotated.stdout);
    expect(retired).toBeTruthy();
    const after = await fsService(rotationRoot);
    const newRun = await finishFixtureRun(after.t);
    const newCert = (await after.t.json('GET', `/v1/certificates/${newRun}`, { key: null })).body;
    expect(newCert.provenance_chain[0].signature.split('.')[0]).toBe(Buffer.from(JSON.stringify({ alg: 'EdDSA', kid, typ: 'aeh-provenance+jws' })).toString('base64url'));
    const jwks = JSON.parse(readFileSync(after.jwksFile, 'utf8'));
    expect(jwks.keys.map((key: { kid: string }) => key.kid)).toEqual([kid, retired]);
    for (const id of [oldRun, newRun]) {
      expect((await after.t.json('GET', `/api/v1/verify/${id}`, { key: null })).body.valid).toBe(true);
      const dir = after.runDir(id);
      const offline = await aeh(['verify', join(dir, 'certificate.json'), '--trace', join(dir, 'trace.jsonl'), '--jwks', after.jwksFile]);
      expect(offline.code, offline.stdout).toBe(0);
    }
    await after.t.app.close();
    rmSync(rotationRoot, { recursive: true, force: true });
  });
});
