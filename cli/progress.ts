/**
 * Progress of an evaluation or a suite: a redrawn bar with an ETA on a terminal, plain lines (only when something
 * changed) in CI logs, nothing with `--json`.
 */
import type { Io } from './io.ts';

export interface Progress {
  update(status: string, done: number, total: number): void;
  finish(): void;
}

/** `1m05s`, `42s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

/**
 * The time left at the pace so far, from the first update that saw progress (so time spent queued before the
 * first step does not count): `null` until two points are known.
 */
export function etaOf(start: { at: number; done: number } | null, now: number, done: number, total: number): number | null {
  if (!start || done <= start.done || total <= 0 || done >= total) return null;
  const perUnit = (now - start.at) / (done - start.done);
  return perUnit * (total - done);
}

/** Creates the progress display for `io` (silent when `quiet`); `now` is the clock (tests pass their own). */
export function createProgress(io: Io, quiet: boolean, now: () => number = Date.now): Progress {
  if (quiet) return { update() {}, finish() {} };
  const interactive = Boolean(io.stderr.isTTY) && !io.env.CI;
  let last = '';
  let start: { at: number; done: number } | null = null;
  return {
    update(status, done, total) {
      if (!start && total > 0) start = { at: now(), done };
      const eta = etaOf(start, now(), done, total);
      const key = `${status} ${done}/${total}`;
      if (key === last && !interactive) return;
      last = key;
      if (interactive) {
        const width = 30;
        const filled = total > 0 ? Math.round((done / total) * width) : 0;
        io.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${status}${eta === null ? '' : ` ETA ${formatDuration(eta)}`}   `);
      } else {
        io.stderr.write(`progress: ${status} ${done}/${total}${eta === null ? '' : ` (about ${formatDuration(eta)} left)`}\n`);
      }
    },
    finish() {
      if (interactive && last) io.stderr.write('\n');
    },
  };
}
