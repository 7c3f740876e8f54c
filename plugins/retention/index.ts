/**
 * Retention (issue 27 item 5): keeps a long-lived instance bounded. `AEH_RETENTION_MAX_AGE_DAYS` deletes runs
 * finished longer ago; `AEH_RETENTION_KEEP_RUNS` keeps only the newest runs of each submitter, scenario (id and
 * content) and agent, never a run a pinned baseline or a suite certificate holds (policy.ts). Both
 * apply at the daily `retention.gc` job and at `POST /api/v1/gc` (`aeh gc`; permission `storage:gc`, held only
 * by SUPERVISOR or a key granted it), which may also give its own rules and `dry_run`. A deleted run keeps its
 * certificate and a tombstone (core/domain/tombstone.ts); blobs no run refers to are deleted (gc.ts).
 */
import type { Plugin } from '../../core/plugin.ts';
import type { Services } from '../../core/services.ts';
import { collectGarbage } from './gc.ts';
import type { RetentionRules } from './policy.ts';

const DAYS = { type: 'integer', minimum: 1, maximum: 36_500 };
const COUNT = { type: 'integer', minimum: 1, maximum: 1_000_000 };

/** The settings retention reads (docs/deployment.md, "Retention"). */
const SETTINGS = {
  type: 'object',
  properties: {
    AEH_RETENTION_MAX_AGE_DAYS: { ...DAYS, description: 'Delete the evidence of runs finished more than this many days ago (default: keep)' },
    AEH_RETENTION_KEEP_RUNS: { ...COUNT, description: 'Keep only this many newest finished runs per submitter, scenario (id and content) and agent; runs a baseline or suite certificate holds are kept (default: keep all)' },
  },
} as const;

const GC_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    dry_run: { type: 'boolean', description: 'Report what would be deleted; delete nothing' },
    max_age_days: { ...DAYS, description: 'Overrides AEH_RETENTION_MAX_AGE_DAYS for this collection' },
    keep_runs: { ...COUNT, description: 'Overrides AEH_RETENTION_KEEP_RUNS for this collection' },
  },
};

/** The configured rules. */
function configuredRules(settings: Readonly<Record<string, unknown>>): RetentionRules {
  const maxAge = settings.AEH_RETENTION_MAX_AGE_DAYS as number | undefined;
  const keep = settings.AEH_RETENTION_KEEP_RUNS as number | undefined;
  return { ...(maxAge !== undefined ? { max_age_days: maxAge } : {}), ...(keep !== undefined ? { keep_runs: keep } : {}) };
}

export default {
  name: 'retention',
  // It deletes what evaluation and certification store.
  dependencies: ['evaluation', 'certification'],
  settings: SETTINGS,
  setup(host) {
    const configured = configuredRules(host.settings);
    const collect = (services: Services, rules: RetentionRules, dryRun: boolean) => collectGarbage(services.store, rules, {
      now: services.now(), dryRun,
      onDeleted: (deleted) => services.hooks.emit('run.deleted', deleted),
      onBlobDeleted: (deleted) => services.hooks.emit('blob.deleted', deleted),
    });
    host.jobs.register({
      name: 'retention.gc',
      cron: '41 3 * * *',
      async run(services) {
        if (!configured.max_age_days && !configured.keep_runs) return;
        const report = await collect(services, configured, false);
        if (report.runs.deleted || report.blobs.deleted) services.logger.info(`retention deleted ${report.runs.deleted} run(s) and ${report.blobs.deleted} blob(s), ${report.bytes_freed} bytes`);
      },
    }, 'retention');
    host.routes.register({
      method: 'POST',
      path: '/api/v1/gc',
      permission: 'storage:gc',
      summary: "Delete old runs' evidence under the retention rules and the blobs no run refers to",
      tags: ['evaluation'],
      audit: 'gc',
      body: GC_BODY,
      responses: { 200: { description: 'What was deleted (or, with dry_run, would be): runs, blobs, bytes freed' } },
      async handler(c) {
        const body = c.var.body as RetentionRules & { dry_run?: boolean };
        const rules: RetentionRules = { ...configured, ...(body.max_age_days !== undefined ? { max_age_days: body.max_age_days } : {}), ...(body.keep_runs !== undefined ? { keep_runs: body.keep_runs } : {}) };
        const report = await collect(c.var.services, rules, body.dry_run === true);
        return c.json(report, 200, { 'cache-control': 'no-store' });
      },
    }, 'retention');
  },
} satisfies Plugin;
