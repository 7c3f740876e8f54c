import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from './client.ts';
import { saveArtifacts } from './artifacts.ts';

const encoder = new TextEncoder();

/** A client that serves fixed bytes per path (404 otherwise) and records what was asked. */
function fakeClient(files: Record<string, string | Uint8Array>): ApiClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    target: 'fake',
    asked,
    async request() {
      throw new Error('not used');
    },
    async download(path) {
      asked.push(path);
      const value = files[path];
      if (value === undefined) return { status: 404, bytes: new Uint8Array() };
      return { status: 200, bytes: typeof value === 'string' ? encoder.encode(value) : value };
    },
    close: async () => undefined,
  };
}

const CERTIFICATE = JSON.stringify({ trace_file: 'trace.jsonl', evidence_ledger: { 'scores.json': 'a'.repeat(64), 'summary.json': 'b'.repeat(64) } });

describe('cli: --artifacts', () => {
  it('saves exact bytes of the certificate, trace, ledger sidecars and JWKS', async () => {
    const trace = new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0a, 0xff]); // a BOM and an invalid UTF-8 byte survive
    const client = fakeClient({
      '/v1/certificates/run%201': CERTIFICATE,
      '/api/v1/runs/run%201/trace': trace,
      '/.well-known/jwks.json': '{"keys":[]}',
      '/api/v1/runs/run%201/evidence/scores.json': '{"s":1}',
      '/api/v1/runs/run%201/evidence/summary.json': '{"m":2}',
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'aeh-artifacts-')), 'nested', 'out');
    const saved = await saveArtifacts(client, 'run 1', dir, { run_id: 'run 1' });
    expect(saved).toMatchObject({ certificate: 'certificate.json', trace: 'trace.jsonl', sidecars: ['scores.json', 'summary.json'], jwks: 'jwks.json' });
    expect(readdirSync(dir).sort()).toEqual(['certificate.json', 'jwks.json', 'run.json', 'scores.json', 'summary.json', 'trace.jsonl']);
    expect(new Uint8Array(readFileSync(join(dir, 'trace.jsonl')))).toEqual(trace);
    expect(readFileSync(join(dir, 'certificate.json'), 'utf8')).toBe(CERTIFICATE);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('{"m":2}');
  });

  it('refuses ledger names that would write outside the folder or over its own files, before writing anything', async () => {
    for (const name of ['../escape.json', '/etc/passwd', 'a/b.json', '..', 'jwks.json', 'certificate.json']) {
      const client = fakeClient({ '/v1/certificates/r': JSON.stringify({ trace_file: 'trace.jsonl', evidence_ledger: { [name]: 'c'.repeat(64) } }) });
      const dir = join(mkdtempSync(join(tmpdir(), 'aeh-artifacts-')), 'out');
      await expect(saveArtifacts(client, 'r', dir, {}), name).rejects.toThrow(/cannot be saved safely/);
      expect(existsSync(dir)).toBe(false);
      expect(client.asked).toEqual(['/v1/certificates/r']);
    }
  });

  it('names what could not be fetched', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'aeh-artifacts-')), 'out');
    await expect(saveArtifacts(fakeClient({}), 'r', dir, {})).rejects.toThrow('could not fetch the certificate (GET /v1/certificates/r answered 404)');
    const noSidecar = fakeClient({ '/v1/certificates/r': CERTIFICATE, '/api/v1/runs/r/trace': '', '/.well-known/jwks.json': '{}', '/api/v1/runs/r/evidence/scores.json': '{}' });
    await expect(saveArtifacts(noSidecar, 'r', dir, {})).rejects.toThrow('could not fetch the sidecar summary.json');
    expect(existsSync(dir)).toBe(false);
  });

  it('falls back to trace.jsonl when the certificate names an unusable trace file', async () => {
    const client = fakeClient({
      '/v1/certificates/r': JSON.stringify({ trace_file: '../../x', evidence_ledger: {} }),
      '/api/v1/runs/r/trace': 'line\n',
      '/.well-known/jwks.json': '{}',
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'aeh-artifacts-')), 'out');
    expect((await saveArtifacts(client, 'r', dir, {})).trace).toBe('trace.jsonl');
    expect(readFileSync(join(dir, 'trace.jsonl'), 'utf8')).toBe('line\n');
  });
});
