/**
 * Progress of an evaluation: a redrawn bar on a terminal, plain lines (only when something changed) in CI
 * logs, nothing with `--json`.
 */
import type { Io } from './io.ts';

export interface Progress {
  update(status: string, done: number, total: number): void;
  finish(): void;
}

/** Creates the progress display for `io` (silent when `quiet`). */
export function createProgress(io: Io, quiet: boolean): Progress {
  if (quiet) return { update() {}, finish() {} };
  const interactive = Boolean(io.stderr.isTTY) && !io.env.CI;
  let last = '';
  return {
    update(status, done, total) {
      const key = `${status} ${done}/${total}`;
      if (key === last) return;
      last = key;
      if (interactive) {
        const width = 30;
        const filled = total > 0 ? Math.round((done / total) * width) : 0;
        io.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${status}   `);
      } else {
        io.stderr.write(`progress: ${status} ${done}/${total}\n`);
      }
    },
    finish() {
      if (interactive && last) io.stderr.write('\n');
    },
  };
}
