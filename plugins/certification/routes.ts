/**
 * Certification routes (api-contract.md): public verify, public certificate with ETag, public key set, and
 * the Auditor's countersignature.
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import type { Certificate } from '../../core/domain/certificate.ts';
import { certificateSchema } from '../../core/domain/schemas/certificate.ts';
import { sha3Factory, sha3Hex } from '../../core/domain/hash.ts';
import { keys, isValidRunId } from '../../core/domain/runs.ts';
import { Problem, notFound } from '../../core/problems.ts';
import type { AppContext, RouteDefinition } from '../../core/routes.ts';
import { appendAuditor } from './issue.ts';
import { publishedKeySet } from './keyset.ts';
import { verifyStoredRun, type VerifyCache } from './verify-run.ts';
import { createKeyedSerialiser, type KeyedSerialiser } from '../../core/keyed-queue.ts';
import { respond, respondJson } from '../../core/respond.ts';
import { assertNotDeleted } from '../../core/domain/tombstone.ts';

const RUN_ID_PARAMETER = { name: 'run_id', in: 'path' as const, required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' } };

const CHECK_SCHEMA = { type: 'object', required: ['id', 'ok', 'detail'], properties: { id: { type: 'string' }, ok: { type: 'boolean' }, detail: { type: 'string' } } };

const VERIFY_SCHEMA = {
  type: 'object',
  required: ['run_id', 'valid', 'status', 'checks', 'certificate'],
  properties: {
    run_id: { type: 'string' },
    valid: { type: 'boolean' },
    status: { enum: ['valid', 'invalid', 'expired'] },
    checks: { type: 'array', items: CHECK_SCHEMA, description: 'At least schema, trace_hash, evidence_ledger, signatures, chain_anchor, expiry.' },
    certificate: { description: 'The stored certificate, as verified (whatever it holds).' },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    checked_at: { type: 'string', format: 'date-time' },
  },
};

const JWKS_SCHEMA = { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object', required: ['kty', 'kid'], properties: { kty: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' }, use: { type: 'string' } } } } } };

function runIdOf(c: AppContext): string {
  const runId = c.req.param('run_id') ?? '';
  if (!isValidRunId(runId)) throw notFound(`run "${runId.slice(0, 64)}"`);
  return runId;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  // Weak comparison (RFC 9110 §13.1.2): W/"x" matches "x".
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** GET /api/v1/verify/:run_id: the public integrity audit of a signed run. */
function verifyRoute(cache: VerifyCache): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/v1/verify/:run_id',
    permission: null,
    summary: 'Public integrity audit of a signed run: re-hashes the trace and sidecars, checks the schema, every signature and expiry',
    tags: ['certification'],
    parameters: [RUN_ID_PARAMETER],
    responses: { 200: { description: 'The verification report (also for invalid or expired certificates)', schema: VERIFY_SCHEMA } },
    async handler(c) {
      const runId = runIdOf(c);
      const services = c.var.services;
      // A run whose evidence retention deleted keeps its certificate: say so, with how it still verifies offline.
      await assertNotDeleted(services.store, runId);
      const verified = await verifyStoredRun(services, runId, cache);
      if (!verified) throw notFound(`a certificate for run "${runId}"`);
      services.telemetry.increment(`certificates.verified.${verified.result.status}`);
      return respondJson(
        c,
        { run_id: runId, valid: verified.result.valid, status: verified.result.status, checks: verified.result.checks, certificate: verified.certificate, expires_at: verified.result.expires_at, checked_at: new Date(services.now()).toISOString() },
        200,
        { 'cache-control': 'no-store' },
      );
    },
  };
}

/** GET /v1/certificates/:run_id: the certificate itself, with an ETag. */
function certificateRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/v1/certificates/:run_id',
    aliases: ['/api/v1/certificates/:run_id'],
    permission: null,
    summary: 'The verification certificate (3.0.0) of a run, with an ETag: the public trust anchor for CI/CD gates',
    tags: ['certification'],
    parameters: [RUN_ID_PARAMETER],
    responses: { 200: { description: 'The certificate', schema: certificateSchema as unknown as Record<string, unknown> }, 304: { description: 'Unchanged since the ETag sent in If-None-Match' } },
    async handler(c) {
      const runId = runIdOf(c);
      const services = c.var.services;
      const bytes = await services.store.getBytes(keys.certificate(runId));
      if (!bytes) throw notFound(`a certificate for run "${runId}"`);
      const etag = `"${sha3Hex(bytes, sha3Factory(services.capabilities))}"`;
      // An Auditor signature changes the certificate, so caches must revalidate; the ETag makes that cheap.
      const headers = { etag, 'cache-control': 'public, no-cache' };
      if (etagMatches(c.req.header('if-none-match'), etag)) return respond(c, null, 304, undefined, headers);
      return respond(c, bytes as Uint8Array<ArrayBuffer>, 200, 'application/json', headers);
    },
  };
}

/** GET /.well-known/jwks.json: every signer's public keys. */
function keySetRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/.well-known/jwks.json',
    permission: null,
    summary: 'Public keys of every signer (current and retired), with the kid used in signatures',
    tags: ['certification'],
    responses: { 200: { description: 'JSON Web Key Set (RFC 7517)', schema: JWKS_SCHEMA } },
    async handler(c) {
      const published = await publishedKeySet(c.var.services);
      return respondJson(c, { keys: published }, 200, { 'cache-control': 'public, max-age=300' });
    },
  };
}

/** POST /api/v1/runs/:run_id/sign: the Auditor's countersignature, one at a time per run (`serialised`). */
function signRoute(cache: VerifyCache, serialised: KeyedSerialiser): RouteDefinition {
  return {
    method: 'POST',
    path: '/api/v1/runs/:run_id/sign',
    permission: 'runs:sign',
    summary: 'Countersigns a run as Auditor: verifies it, appends an Auditor entry to provenance_chain and returns the certificate',
    tags: ['certification'],
    parameters: [RUN_ID_PARAMETER],
    audit: 'sign',
    responses: { 200: { description: 'The certificate with the new Auditor entry', schema: certificateSchema as unknown as Record<string, unknown> } },
    async handler(c) {
      const runId = runIdOf(c);
      const services = c.var.services;
      const identity = c.var.principal?.id ?? 'unknown';
      const certificate = await serialised(runId, async () => {
        const verified = await verifyStoredRun(services, runId, cache, { fresh: true });
        if (!verified) throw notFound(`a certificate for run "${runId}"`);
        if (!verified.result.valid) {
          // An Auditor must never countersign evidence that no longer matches its certificate.
          throw new Problem('conflict', {
            detail: `the run's certificate is ${verified.result.status}; it cannot be countersigned (${verified.result.checks.filter((check) => !check.ok).map((check) => check.id).join(', ')})`,
            extra: { status: verified.result.status, checks: verified.result.checks },
          });
        }
        try {
          return await appendAuditor(services, verified.certificate as Certificate, identity);
        } catch (error) {
          throw new Problem('unavailable', { detail: 'the signer could not sign; retry later', cause: error });
        }
      });
      return c.json(certificate);
    },
  };
}

/** Registers the certification routes. */
export function registerCertificationRoutes(host: PluginHost, cache: VerifyCache): void {
  const owner = 'certification';
  // Auditor signatures of one run are appended one at a time within this instance, so two concurrent signs
  // never drop one another. (Two instances signing the same run at the same instant can still both read the
  // same chain; the later write wins and the certificate stays valid with one Auditor entry: see docs/certificates.md.)
  const serialised = createKeyedSerialiser();
  host.routes.register(verifyRoute(cache), owner);
  host.routes.register(certificateRoute(), owner);
  host.routes.register(keySetRoute(), owner);
  host.routes.register(signRoute(cache, serialised), owner);
}
