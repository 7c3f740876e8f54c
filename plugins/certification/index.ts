/**
 * Certification: every finished run gets a signed Verification Certificate 3.0.0 (`runs/<run_id>/certificate.json`)
 * that anyone can verify through `GET /api/v1/verify/:run_id` or offline with `aeh verify`.
 * See docs/certificates.md for the certificate, the exact signed bytes and the verification API.
 */
import type { Plugin } from '../../core/plugin.ts';
import { certificateSchema } from '../../core/domain/schemas/certificate.ts';
import { selectSigner } from '../../core/signer.ts';
import { issueCertificate } from './issue.ts';
import { publishedKeySet } from './keyset.ts';
import { registerCertificationRoutes } from './routes.ts';
import { createVerifyCache, type RehashMode } from './verify-run.ts';
import { PRODUCT_NAME } from '../../core/version.ts';
import type { CheckResult, Services } from '../../core/services.ts';

/** The settings certification reads (docs/certificates.md). */
const SETTINGS = {
  type: 'object',
  properties: {
    AEH_VERIFY_REHASH: { type: 'string', description: '"changed" (default) or "always"' },
    AEH_VERIFY_CACHE_MS: { type: 'string', description: 'Gone; refused unless 0' },
    AEH_EVALUATOR_IDENTITY: { type: 'string', maxLength: 500, description: 'The identity of Evaluator entries (default the product name)' },
  },
} as const;

function rehashMode(env: Readonly<Record<string, unknown>>): RehashMode {
  // Public verify used to reuse artefact hashes for this long, so an edit went unseen meanwhile (issue 13).
  const cacheMs = (env.AEH_VERIFY_CACHE_MS as string | undefined)?.trim();
  if (cacheMs && cacheMs !== '0') throw new Error(`certification: AEH_VERIFY_CACHE_MS is gone (public verify no longer reuses hashes for a time); unset it, and see AEH_VERIFY_REHASH in docs/certificates.md`);
  const raw = (env.AEH_VERIFY_REHASH as string | undefined)?.trim() || 'changed';
  if (raw !== 'changed' && raw !== 'always') throw new Error(`certification: AEH_VERIFY_REHASH must be "changed" (re-hash what the store cannot prove unchanged) or "always", got "${raw.slice(0, 40)}"`);
  return raw;
}

/** The active signer works and publishes its current key; `probe` also asks the signer's own health. */
async function signerCheck(services: Services, probe: boolean): Promise<Omit<CheckResult, 'id'>> {
  let signer;
  try {
    signer = selectSigner(services.signers, services.config);
  } catch (error) {
    return { status: 'fail', message: (error as Error).message, hint: 'set AEH_SIGNER to one of the configured signers, or unset it' };
  }
  const health = (probe ? await signer.health?.() : undefined) ?? { ok: true, message: `${signer.name} signer` };
  if (!health.ok) return { status: 'fail', message: health.message, hint: 'check the signer configuration (docs/certificates.md, "Signers")' };
  const key = await signer.currentKey();
  const published = await publishedKeySet(services).catch(() => []);
  if (!published.some((jwk) => jwk.kid === key.kid)) {
    return { status: 'fail', message: `the ${signer.name} key ${key.kid} is not in /.well-known/jwks.json`, hint: 'a signer must publish its current key' };
  }
  return { status: 'ok', message: `${signer.name} signs with ${key.alg} key ${key.kid}; ${published.length} key(s) published`, details: { signer: signer.name, kid: key.kid, alg: key.alg, published: published.length } };
}

export default {
  name: 'certification',
  dependencies: ['signer-local', 'evaluation'],
  settings: SETTINGS,
  setup(host) {
    const cache = createVerifyCache(rehashMode(host.settings));
    const identity = (host.settings.AEH_EVALUATOR_IDENTITY as string | undefined)?.trim() || PRODUCT_NAME;
    host.schemas.register({ name: 'Certificate', schema: certificateSchema as unknown as Record<string, unknown> }, 'certification');
    host.on('run.finished', async ({ run_id, record, evidence, digests }, services) => {
      // Errors propagate to the hook runner, which logs them: a run is never failed by its certificate.
      await issueCertificate(services, run_id, identity, record, evidence, digests);
    });
    registerCertificationRoutes(host, cache);
    host.doctorChecks.register({
      id: 'certification.signer',
      run: (services) => signerCheck(services, true),
      // Without the signer's own health probe, which may be a round trip to a cloud key service.
      quick: (services) => signerCheck(services, false),
    });
    host.onStart((services) => {
      // Fail the start, naming the fix, when AEH_SIGNER names no configured signer.
      selectSigner(services.signers, services.config);
    });
  },
} satisfies Plugin;
