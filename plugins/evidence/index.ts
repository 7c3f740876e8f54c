/**
 * The run's evidence files over HTTP: `GET /api/v1/runs/:run_id/evidence/:file` answers a sidecar named in the
 * run's certificate `evidence_ledger`, byte for byte what the ledger hash covers, so an offline gate
 * (`aeh verify --sidecars`, docs/certificates.md) can fetch everything it re-hashes from the API.
 * Permission `runs:export`, as for the trace. Only ledger names are served, and only through the run's own
 * storage keys: a name that is not a plain basename in that run's ledger is a 404, whatever is stored.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { Certificate } from '../../core/domain/certificate.ts';
import { isSafeBasename } from '../../core/domain/certificate.ts';
import { isValidRunId, keys } from '../../core/domain/runs.ts';
import { notFound } from '../../core/problems.ts';
import { readEvidence } from '../../core/domain/packed-evidence.ts';
import { assertNotDeleted } from '../../core/domain/tombstone.ts';

const PARAMETERS = [
  { name: 'run_id', in: 'path' as const, required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' } },
  { name: 'file', in: 'path' as const, required: true, schema: { type: 'string' }, description: 'A file name from the certificate\'s evidence_ledger' },
];

// Storage keys map `/` and `:` to path segments (unstorage), so only plain file names are served.
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/** True when `name` is an own key of the certificate's ledger (never an inherited one such as `constructor`). */
function inLedger(certificate: Partial<Certificate> | null, name: string): boolean {
  const ledger = certificate?.evidence_ledger;
  return Boolean(ledger && typeof ledger === 'object' && Object.prototype.hasOwnProperty.call(ledger, name));
}

function registerEvidenceRoute(host: PluginHost): void {
  host.routes.register({
    method: 'GET',
    path: '/api/v1/runs/:run_id/evidence/:file',
    permission: 'runs:export',
    summary: "A sidecar file named in the run certificate's evidence_ledger, byte for byte what its hash covers",
    tags: ['certification'],
    parameters: PARAMETERS,
    responses: { 200: { description: 'The sidecar bytes', contentType: 'application/json', schema: {} } },
    async handler(c) {
      const runId = c.req.param('run_id') ?? '';
      const file = c.req.param('file') ?? '';
      if (!isValidRunId(runId)) throw notFound(`run "${runId.slice(0, 64)}"`);
      const store = c.var.services.store;
      await assertNotDeleted(store, runId);
      const certificate = await store.getJson<Partial<Certificate>>(keys.certificate(runId));
      if (!certificate) throw notFound(`a certificate for run "${runId}"`);
      // The ledger is evidence, not a path list: a hostile or damaged entry must not reach outside the run.
      if (!isSafeBasename(file) || !PLAIN_NAME.test(file) || !inLedger(certificate, file)) throw notFound(`evidence file "${file.slice(0, 64)}" of run "${runId}"`);
      // Stored whole or packed (core/domain/packed-evidence.ts): the bytes as judged either way.
      const bytes = await readEvidence(store, runId, file);
      if (!bytes) throw notFound(`evidence file "${file}" of run "${runId}"`);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: {
          'content-type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream',
          'cache-control': 'no-store',
          'content-disposition': `attachment; filename="${file}"`,
        },
      });
    },
  }, 'evidence');
}

export default {
  name: 'evidence',
  // It packages a run's records and its certificate.
  dependencies: ['evaluation', 'certification'],
  setup: registerEvidenceRoute,
} satisfies Plugin;
