/**
 * A run's end-of-run sidecars stored as one bundle (issue 36, core/domain/evidence-bundle.ts): the certificate's
 * ledger names and hashes the three files as before, every reader is served their exact bytes, runs stored
 * whole before the change still read and verify, and a damaged bundle fails verification on the ledger check.
 */
import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';
import { runCli } from './cli-io.ts';
import { BUNDLE_FILE, unpackBundle } from '../core/domain/evidence-bundle.ts';

const sha3 = (bytes: Uint8Array) => createHash('sha3-256').update(bytes).digest('hex');
const END_OF_RUN = ['scores.json', 'failures.json', 'summary.json'];

interface Verify { valid: boolean; status: string; checks: Array<{ id: string; ok: boolean; detail: string }> }
const failing = (report: Verify) => report.checks.filter((check) => !check.ok).map((check) => check.id).sort();
const detailOf = (report: Verify, id: string) => report.checks.find((check) => check.id === id)?.detail ?? '';

describe('certification: end-of-run sidecars in one bundle (issue 36)', () => {
  let root: string;
  let dataDir: string;
  let t: TestApp;
  const runDir = (runId: string) => join(dataDir, 'runs', runId);
  const verify = async (runId: string) => (await t.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
  const served = async (runId: string, file: string) => new Uint8Array(await (await t.request('GET', `/api/v1/runs/${runId}/evidence/${file}`)).arrayBuffer());
  const certificateOf = async (runId: string) => (await t.json<{ evidence_ledger: Record<string, string> }>('GET', `/v1/certificates/${runId}`, { key: null })).body;
  /** A run with a failure (t1 misses its expected text), so failures.json is not empty. */
  const failingRun = async () => (await evaluate(t, { scenario: scriptedScenario('bundle', { agent: { adapter: 'scripted', replies: { t1: 'No idea.', t2: "I can't help with that." } } }) })).run.run_id as string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'aeh-bundle-'));
    dataDir = join(root, '.aeh');
    t = await testApp({ plugins: [testMetrics], env: { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: dataDir } });
  });
  afterAll(async () => {
    await t.app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes one bundle and no first-issue anchor; the certificate verifies and every sidecar served hashes to its ledger entry', async () => {
    const runId = await failingRun();
    const files = readdirSync(runDir(runId));
    expect(files).toContain(BUNDLE_FILE);
    for (const file of [...END_OF_RUN, 'certificate.anchor.json']) expect(files).not.toContain(file);
    const certificate = await certificateOf(runId);
    expect(Object.keys(certificate.evidence_ledger).sort()).toEqual(['failures.json', 'scenario.json', 'scores.json', 'summary.json']);
    const bundled = unpackBundle(readFileSync(join(runDir(runId), BUNDLE_FILE)))!;
    for (const file of END_OF_RUN) {
      const bytes = await served(runId, file);
      expect(sha3(bytes), file).toBe(certificate.evidence_ledger[file]);
      expect(bytes, file).toEqual(new Uint8Array(bundled.get(file)!));
    }
    expect(JSON.parse(new TextDecoder().decode(await served(runId, 'failures.json'))).length).toBeGreaterThan(0);
    const report = await verify(runId);
    expect(report).toMatchObject({ valid: true, status: 'valid' });
    expect(detailOf(report, 'chain_anchor')).toContain('no anchor recorded');
  });

  it('a run stored whole (before the bundle) reads and verifies, and readers answer the same from either layout', async () => {
    const runId = await failingRun();
    const explained = (await t.json('GET', `/api/v1/explain/${runId}`)).body;
    // The layout of runs stored before issue 36: each sidecar its own file, no bundle.
    const bundle = join(runDir(runId), BUNDLE_FILE);
    for (const [file, bytes] of unpackBundle(readFileSync(bundle))!) writeFileSync(join(runDir(runId), file), bytes);
    rmSync(bundle);
    expect(await verify(runId)).toMatchObject({ valid: true });
    const certificate = await certificateOf(runId);
    for (const file of END_OF_RUN) expect(sha3(await served(runId, file)), file).toBe(certificate.evidence_ledger[file]);
    expect((await t.json('GET', `/api/v1/explain/${runId}`)).body).toEqual(explained);
    expect((await t.request('GET', `/api/v1/runs/${runId}/report`)).status).toBe(200);
  });

  it('a byte changed inside the bundle fails evidence_ledger naming the file; a damaged frame reports the files missing', async () => {
    const runId = await failingRun();
    const path = join(runDir(runId), BUNDLE_FILE);
    const original = readFileSync(path);
    const edited = Buffer.from(original);
    edited[edited.length - 2] = edited[edited.length - 2]! ^ 1; // inside summary.json, the last file
    writeFileSync(path, edited);
    const changed = await verify(runId);
    expect(changed.status).toBe('invalid');
    expect(failing(changed)).toEqual(['evidence_ledger']);
    expect(detailOf(changed, 'evidence_ledger')).toMatch(/^summary\.json hashes to [0-9a-f]{64}, the ledger says/);
    writeFileSync(path, original.subarray(0, original.length - 1));
    const truncated = await verify(runId);
    expect(failing(truncated)).toEqual(['evidence_ledger']);
    for (const file of END_OF_RUN) expect(detailOf(truncated, 'evidence_ledger')).toContain(`${file} is missing`);
    expect((await t.request('GET', `/api/v1/runs/${runId}/evidence/scores.json`)).status).toBe(404);
  });

  it('AEH_VERIFY_REHASH=always judges the bundled sidecars from one reading of the bundle per request: the same verdicts', async () => {
    const runId = await failingRun();
    const always = await testApp({ plugins: [testMetrics], env: { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: dataDir, AEH_VERIFY_REHASH: 'always' } });
    try {
      const verifyAlways = async () => (await always.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
      expect(failing(await verifyAlways())).toEqual([]);
      const path = join(runDir(runId), BUNDLE_FILE);
      const original = readFileSync(path);
      const edited = Buffer.from(original);
      edited[edited.length - 2] = edited[edited.length - 2]! ^ 1; // inside summary.json, the last file
      writeFileSync(path, edited);
      const changed = await verifyAlways();
      expect(failing(changed)).toEqual(['evidence_ledger']);
      expect(detailOf(changed, 'evidence_ledger')).toMatch(/^summary\.json hashes to [0-9a-f]{64}, the ledger says/);
      expect(detailOf(changed, 'evidence_ledger')).not.toMatch(/scores\.json|failures\.json/);
      writeFileSync(path, original);
      // A whole file beside the bundle still wins over the bundle's copy.
      writeFileSync(join(runDir(runId), 'scores.json'), '{"index":1}');
      const whole = await verifyAlways();
      expect(failing(whole)).toEqual(['evidence_ledger']);
      expect(detailOf(whole, 'evidence_ledger')).toMatch(/^scores\.json hashes to/);
      rmSync(join(runDir(runId), 'scores.json'));
      expect(failing(await verifyAlways())).toEqual([]);
    } finally {
      await always.app.close();
    }
  });

  it('a sidecar written whole beside the bundle is what is served and verified, even under the bundle\'s change proof', async () => {
    const runId = await failingRun();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    try {
      expect((await verify(runId)).valid).toBe(true);
      expect(detailOf(await verify(runId), 'evidence_ledger')).toContain('all unchanged since hashed');
      // Its timestamps at the (moved) clock: the new file has no change proof yet, while the bundle has one.
      const whole = join(runDir(runId), 'scores.json');
      writeFileSync(whole, '{"index":1}');
      utimesSync(whole, Date.now() / 1000, Date.now() / 1000);
      const report = await verify(runId);
      expect(failing(report)).toEqual(['evidence_ledger']);
      expect(detailOf(report, 'evidence_ledger')).toContain('scores.json hashes to');
      expect(new TextDecoder().decode(await served(runId, 'scores.json'))).toBe('{"index":1}');
    } finally {
      vi.useRealTimers();
    }
  });

  it('aeh verify checks a run folder of the fs store offline, cutting the sidecars out of its bundle', async () => {
    const runId = await failingRun();
    const jwks = join(root, 'jwks.json');
    writeFileSync(jwks, JSON.stringify((await t.json('GET', '/.well-known/jwks.json', { key: null })).body));
    const dir = runDir(runId);
    expect(existsSync(join(dir, 'scores.json'))).toBe(false);
    const ok = await runCli(['verify', join(dir, 'certificate.json'), '--trace', join(dir, 'trace.jsonl'), '--jwks', jwks], { cwd: root });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const bundle = readFileSync(join(dir, BUNDLE_FILE));
    bundle[bundle.length - 2] = bundle[bundle.length - 2]! ^ 1;
    writeFileSync(join(dir, BUNDLE_FILE), bundle);
    const tampered = await runCli(['verify', join(dir, 'certificate.json'), '--trace', join(dir, 'trace.jsonl'), '--jwks', jwks], { cwd: root });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/FAIL evidence_ledger +summary\.json hashes to/);
  });

  it('an Auditor entry records the anchor, so rolling the certificate back to its first issue still fails chain_anchor', async () => {
    const runId = await failingRun();
    const first = readFileSync(join(runDir(runId), 'certificate.json'));
    expect((await t.json('POST', `/api/v1/runs/${runId}/sign`)).status).toBe(200);
    expect(JSON.parse(readFileSync(join(runDir(runId), 'certificate.anchor.json'), 'utf8'))).toMatchObject({ entries: 2 });
    expect(detailOf(await verify(runId), 'chain_anchor')).toContain('holds the 2 entries');
    writeFileSync(join(runDir(runId), 'certificate.json'), first);
    const rolledBack = await verify(runId);
    expect(failing(rolledBack)).toEqual(['chain_anchor']);
    expect(detailOf(rolledBack, 'chain_anchor')).toContain('this service signed 2 entries; the certificate holds 1');
  });
});
