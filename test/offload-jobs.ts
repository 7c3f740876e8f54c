/**
 * Jobs and metrics for the offload tests, loaded by URL in a worker (runtime/node/offload.test.ts,
 * test/hostile/metric-budget.test.ts): an echo, a job that never returns, one that throws a `Problem`, and a
 * metric that spins on one particular answer, as a backtracking regex would.
 */
import { defineMetric, pass } from '../core/metric.ts';
import { Problem } from '../core/problems.ts';

export const OFFLOAD_JOBS_MODULE = import.meta.url;

/** The answer on which `spin_metric` never returns. */
export const SPIN_ANSWER = 'spin forever';

export function echo(input: unknown): unknown {
  return { echoed: input };
}

export function spin(): never {
  for (;;) {
    // a synchronous loop: only terminating the worker stops it
  }
}

export function refuse(input: { detail: string }): never {
  throw new Problem('spec_parse_failed', { detail: input.detail, extra: { pitfalls: [{ code: 'x', line: 1, message: input.detail }] } });
}

export default defineMetric({
  id: 'spin_metric',
  dimension: 'reliability',
  version: '1.0.0',
  description: 'Test metric: passes, except on one answer where it never returns.',
  module: import.meta.url,
  score({ output }) {
    if (output === SPIN_ANSWER) spin();
    return pass();
  },
});

/** Blocks its worker for `ms` without using the CPU (`Atomics.wait`), as a thread the machine does not schedule. */
export function blocked(ms: number): string {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return 'woke';
}
