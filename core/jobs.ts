/**
 * Scheduled jobs: recurring work (expiry sweeps, key-set refresh, scheduled evaluations) that a runtime
 * fires from its scheduler (croner on Node, Deno and Bun; cron triggers on workerd).
 */
import type { Services } from './services.ts';

export interface ScheduledJob {
  name: string;
  /** A cron pattern (croner syntax). */
  cron: string;
  /**
   * Runs on every instance (it refreshes something each instance keeps, like a key-set cache) instead of on
   * the one instance that claims the firing in the shared store.
   */
  perInstance?: boolean;
  run(services: Services): Promise<void>;
}
