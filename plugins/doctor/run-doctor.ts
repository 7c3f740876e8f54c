/**
 * Doctor checks: environment health (`GET /api/v1/doctor`, `aeh doctor`). Plugins contribute checks; each
 * answers ok, warn or fail with a hint that says how to fix it, and the overall status is the worst one.
 */
import type { CheckResult, CheckStatus, Services } from '../../core/services.ts';

const RANK: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** Runs every check (`quick`: their quick form, where they have one); a check that throws fails with its message. */
export async function runDoctor(services: Services, { quick = false }: { quick?: boolean } = {}): Promise<{ status: CheckStatus; checks: CheckResult[] }> {
  const checks = await Promise.all(
    services.doctorChecks.list().map(async (check): Promise<CheckResult> => {
      try {
        return { id: check.id, ...(await (quick && check.quick ? check.quick(services) : check.run(services))) };
      } catch (error) {
        return { id: check.id, status: 'fail', message: `check crashed: ${(error as Error).message}`, hint: 'report this as a bug' };
      }
    }),
  );
  const status = checks.reduce<CheckStatus>((worst, check) => (RANK[check.status] > RANK[worst] ? check.status : worst), 'ok');
  return { status, checks };
}
