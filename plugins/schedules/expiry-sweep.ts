/**
 * Daily expiry sweep: certificates older than their `governance_ttl` (counted from the Evaluator entry, as
 * verification counts it) are marked expired in the run record (`certificate_status: "expired"`) — never
 * deleted, so they remain verifiable as expired evidence.
 */
import type { ScheduledJob } from '../../core/services.ts';
import { keys } from '../../core/domain/runs.ts';
import { certificateExpiry, type Certificate } from '../../core/domain/certificate.ts';

export const expirySweep: ScheduledJob = {
  name: 'certificates.expiry-sweep',
  cron: '17 3 * * *',
  async run(services) {
    const certificates = (await services.store.keys('runs')).filter((key) => key.endsWith('/certificate.json'));
    let marked = 0;
    for (const key of certificates) {
      const runId = key.split('/')[1];
      const certificate = await services.store.getJson<Certificate>(key);
      const expiresAt = certificate && Array.isArray(certificate.provenance_chain) ? certificateExpiry(certificate) : null;
      if (!expiresAt || Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() > services.now()) continue;
      const run = await services.store.getJson<Record<string, unknown>>(keys.run(runId));
      if (!run || run.certificate_status === 'expired') continue;
      await services.store.setJson(keys.run(runId), { ...run, certificate_status: 'expired', certificate_expired_at: new Date(services.now()).toISOString() });
      marked++;
    }
    if (marked) services.logger.info(`expiry sweep marked ${marked} certificate(s) expired`);
  },
};
