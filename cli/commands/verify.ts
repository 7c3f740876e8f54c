/**
 * `aeh verify <certificate.json> --trace <file> --jwks <url-or-file>`: offline verification for CI/CD gates.
 * Needs no running service: re-hashes the trace and the sidecars (beside the trace, or `--sidecars DIR`),
 * validates the schema, checks every provenance signature against the given key set only, and expiry.
 * Exit 0 when valid, 1 when invalid or expired, 3 on usage errors or unreadable inputs.
 */
import { parseArgs } from 'node:util';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { JWK } from 'jose';
import { EXIT, line, type Io } from '../io.ts';
import { verifyCertificate } from '../../core/verify-certificate.ts';
import { nodeSha3 } from '../../runtime/node/capabilities.ts';

export const VERIFY_USAGE = 'aeh verify <certificate.json> --trace <trace.jsonl> --jwks <url-or-file> [--sidecars DIR] [--require-role ROLE] [--json]';

function streamOf(path: string): ReadableStream<Uint8Array> | null {
  return existsSync(path) ? (Readable.toWeb(createReadStream(path, { highWaterMark: 1 << 20 })) as unknown as ReadableStream<Uint8Array>) : null;
}

async function loadKeys(source: string, cwd: string): Promise<JWK[]> {
  const text = /^https?:\/\//.test(source) ? await (await fetch(source, { signal: AbortSignal.timeout(15_000) })).text() : readFileSync(resolve(cwd, source), 'utf8');
  const parsed = JSON.parse(text) as { keys?: JWK[] };
  if (!Array.isArray(parsed.keys)) throw new Error(`${source} is not a JWKS (no "keys" array)`);
  return parsed.keys;
}

export async function verifyCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { trace: { type: 'string' }, jwks: { type: 'string' }, sidecars: { type: 'string' }, 'require-role': { type: 'string', multiple: true }, json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1 || !values.trace || !values.jwks) {
    line(io.stderr, `usage: ${VERIFY_USAGE}`);
    return EXIT.error;
  }
  let certificate: unknown;
  let keys: JWK[];
  try {
    certificate = JSON.parse(readFileSync(resolve(io.cwd, positionals[0]), 'utf8'));
    keys = await loadKeys(values.jwks, io.cwd);
  } catch (error) {
    line(io.stderr, `aeh verify: ${(error as Error).message}`);
    return EXIT.error;
  }
  const tracePath = resolve(io.cwd, values.trace);
  const sidecarDir = resolve(io.cwd, values.sidecars ?? dirname(tracePath));
  const result = await verifyCertificate(certificate, {
    keys,
    now: Date.now(),
    factory: nodeSha3,
    requireRoles: values['require-role'],
    source: {
      // The trace is the file named on the command line, whatever the certificate calls it: trace_hash decides.
      trace: async () => streamOf(tracePath),
      sidecar: async (name) => streamOf(join(sidecarDir, name)),
    },
  });
  if (values.json) line(io.stdout, JSON.stringify(result, null, 2));
  else {
    for (const check of result.checks) line(io.stdout, `${check.ok ? 'ok  ' : 'FAIL'} ${check.id}: ${check.detail}`);
    line(io.stdout, `certificate ${(certificate as { run_id?: string })?.run_id ?? ''}: ${result.status}`);
  }
  return result.valid ? EXIT.pass : EXIT.fail;
}
