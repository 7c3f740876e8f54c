/**
 * `aeh evaluate --artifacts DIR`: saves what an offline gate needs to verify the run without the service
 * (docs/certificates.md): the certificate, the raw trace, every sidecar of its evidence ledger and the
 * service's JWKS, byte for byte as the API serves them, plus the run record for people.
 * `aeh verify DIR/certificate.json --trace DIR/<trace_file> --sidecars DIR --jwks DIR/jwks.json` then checks them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from './client.ts';
import { isSafeBasename } from '../core/domain/certificate.ts';

/** What was saved, by role; `trace` and `sidecars` are file names inside the directory. */
export interface SavedArtifacts {
  dir: string;
  certificate: string;
  trace: string;
  sidecars: string[];
  jwks: string;
}

/** Files the artefacts directory always holds; a ledger entry with one of these names would overwrite them. */
const RESERVED = new Set(['certificate.json', 'jwks.json', 'run.json']);

/** Downloads the run's artefacts into `dir` (created); throws an Error naming what could not be fetched. */
export async function saveArtifacts(client: ApiClient, runId: string, dir: string, run: unknown): Promise<SavedArtifacts> {
  const id = encodeURIComponent(runId);
  const fetchBytes = async (what: string, path: string) => {
    const response = await client.download(path);
    if (response.status !== 200) throw new Error(`could not fetch the ${what} (GET ${path} answered ${response.status})`);
    return response.bytes;
  };
  const certificateBytes = await fetchBytes('certificate', `/v1/certificates/${id}`);
  const certificate = JSON.parse(new TextDecoder().decode(certificateBytes)) as { trace_file?: unknown; evidence_ledger?: unknown };
  const traceFile = typeof certificate.trace_file === 'string' && isSafeBasename(certificate.trace_file) && !RESERVED.has(certificate.trace_file) ? certificate.trace_file : 'trace.jsonl';
  const ledger = certificate.evidence_ledger && typeof certificate.evidence_ledger === 'object' ? Object.keys(certificate.evidence_ledger) : [];
  // A name that is not a plain basename could write outside DIR: the certificate is data, not a path list.
  const unsafe = ledger.filter((name) => !isSafeBasename(name) || RESERVED.has(name) || name === traceFile);
  if (unsafe.length) throw new Error(`the certificate's evidence_ledger names files that cannot be saved safely: ${unsafe.map((name) => JSON.stringify(name.slice(0, 80))).join(', ')}`);
  const [trace, jwks, ...sidecars] = await Promise.all([
    fetchBytes('trace', `/api/v1/runs/${id}/trace`),
    fetchBytes('key set', '/.well-known/jwks.json'),
    ...ledger.map((name) => fetchBytes(`sidecar ${name}`, `/api/v1/runs/${id}/evidence/${encodeURIComponent(name)}`)),
  ]);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'certificate.json'), certificateBytes);
  writeFileSync(join(dir, traceFile), trace!);
  writeFileSync(join(dir, 'jwks.json'), jwks!);
  ledger.forEach((name, position) => writeFileSync(join(dir, name), sidecars[position]!));
  writeFileSync(join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
  return { dir, certificate: 'certificate.json', trace: traceFile, sidecars: ledger, jwks: 'jwks.json' };
}
