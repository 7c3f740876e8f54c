/**
 * Scheduled jobs: recurring work (expiry sweeps, key-set refresh, scheduled evaluations) that a runtime
 * fires from its scheduler (croner on Node, Deno and Bun; cron triggers on workerd).
 */
import type { Services } from './services.ts';

export interface ScheduledJob {
  name: string;
  /** A cron pattern (croner syntax). */
  cron: string;
  run(services: Services): Promise<void>;
}
