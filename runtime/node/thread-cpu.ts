/**
 * CPU time of one thread, read from Linux's /proc, so that an offload job's budget counts the work its worker
 * did rather than the wall clock: on a machine whose cores are all busy (other processes, a CI runner's
 * neighbours) a job gets a fraction of a core, and a wall-clock budget would stop a correct metric or query
 * that load alone made slow, changing what a run found (issue 36: nothing outside the agent changes a verdict).
 *
 * A worker learns where its own counters are (`/proc/thread-self`, a link to `<pid>/task/<tid>`) and tells the
 * pool; the pool reads them when a budget's timer fires. Elsewhere (macOS, Deno or Bun without /proc, a read
 * refused) there is no path and the budget stays wall-clock, as before.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** Clock ticks per second of /proc's `utime` and `stime` (USER_HZ: 100 on every Linux ABI Node runs on). */
const TICKS_PER_SECOND = 100;

/** The calling thread's stat file (`/proc/<pid>/task/<tid>/stat`), or `undefined` where there is none. */
export function ownThreadStatPath(): string | undefined {
  try {
    const path = `/proc/${readlinkSync('/proc/thread-self')}/stat`;
    return threadCpuMs(path) === undefined ? undefined : path;
  } catch {
    return undefined;
  }
}

/** User + system CPU time of the thread whose stat file is `path`, in milliseconds (10 ms steps). */
export function threadCpuMs(path: string | undefined): number | undefined {
  if (!path) return undefined;
  try {
    const stat = readFileSync(path, 'latin1');
    // Fields after the command name, which is in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}
