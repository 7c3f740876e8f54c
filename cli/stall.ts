/**
 * How a command that follows a suite to its end (`aeh bench`, `aeh suite run`) gives up on one that stopped
 * moving (issue 36): when nothing it can see changed for `--stall-s` seconds (the suite's status, how many runs
 * ended, the first run's units, the certificate's state), it fails with what it was waiting for instead of
 * waiting for ever. A CI job then ends with a reason, not at its own time limit with none. `--stall-s 0` waits
 * as long as it takes.
 */

/** The default: a quarter of an hour in which no run ended and no unit of the first run was done. */
export const DEFAULT_STALL_S = 900;

/** `--stall-s` as milliseconds, or the problem with it. */
export function stallMsOf(raw: string | undefined): number | string {
  if (raw === undefined) return DEFAULT_STALL_S * 1000;
  const seconds = Number(raw);
  return /^\d{1,7}$/.test(raw) && Number.isSafeInteger(seconds) ? seconds * 1000 : `--stall-s must be a whole number of seconds (0: no limit), got "${raw}"`;
}

/** What of a suite shows it moving: its status, its runs by status, the first run's units and the certificate. */
export function suiteProgressKey(suite: any, task?: any): string {
  const byStatus: Record<string, number> = {};
  for (const run of suite?.runs ?? []) byStatus[run.status] = (byStatus[run.status] ?? 0) + 1;
  return JSON.stringify([suite?.status, byStatus, task?.progress?.done, suite?.certificate?.status, suite?.certificate?.detail]);
}

/** Watches the progress key: `check` returns the message to fail with once it has not changed for `stallMs`. */
export function createStallWatch(suiteId: string, stallMs: number, now: () => number = Date.now) {
  let seen: string | undefined;
  let since = now();
  return function check(suite: any, task?: any): string | undefined {
    const key = suiteProgressKey(suite, task);
    if (key !== seen) {
      seen = key;
      since = now();
      return undefined;
    }
    if (stallMs <= 0 || now() - since < stallMs) return undefined;
    const runs = suite?.runs ?? [];
    const ended = runs.filter((run: any) => !['pending', 'queued', 'running'].includes(run.status)).length;
    const certificate = suite?.certificate ? `, certificate ${suite.certificate.status} (${suite.certificate.detail})` : '';
    return `suite ${suiteId} showed no progress for ${Math.round((now() - since) / 1000)} s (--stall-s): ${suite?.status ?? 'unknown'}, ${ended}/${runs.length} runs ended${certificate}; given up`;
  };
}
