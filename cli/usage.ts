/** Usage lines shared by the command table (`aeh <command> --help`) and the commands' own usage errors. */

/** `aeh evaluate`. */
export const EVALUATE_USAGE = 'aeh evaluate <path|scenario-id> [--url URL] [--key KEY] [--format text|json|junit|markdown] [--output FILE] [--summary FILE] [--artifacts DIR] [--report FILE] [--baseline latest|pinned|RUN_ID [--max-regression 0.05]] [--agent NAME|JSON|FILE] [--cache] [--attack NAME]… [--injection-tasks ID,…] [--fail-on-severity low|medium|high|critical|none] [--must-pass declared,METRIC…|none] [--min-pass-rate 0..1] [--pass-threshold 0.5..1] [--allow-warning] [--json] [--timeout SECONDS]';

/** `aeh compare`. */
export const COMPARE_USAGE = 'aeh compare <base-run|latest|baseline> <head-run> [--max-regression 0.05] [--answers N] [--json] [--url URL] [--key KEY]';

/** `aeh report`. */
export const REPORT_USAGE = 'aeh report <run_id|suite_id> [-o|--output report.html] [--json] [--url URL] [--key KEY]';

/** `aeh baseline`. */
export const BASELINE_USAGE = 'aeh baseline pin <run_id> | show <scenario-id> [--agent KEY] | unpin <scenario-id> [--agent KEY]  [--json] [--url URL] [--key KEY]';

/** `aeh import`. */
export const IMPORT_USAGE = 'aeh import <data.csv|data.jsonl> [-o scenario.json] [--format csv|jsonl] [--id ID] [--title T] [--industry X] [--use-case X] [--agent @spec.json] [--json] [--url URL] [--key KEY]';

/** `aeh keys`. */
export const KEYS_USAGE = 'aeh keys rotate [--data-dir <dir>] [--json]   (default: AEH_DATA_DIR, else PROJECT_ROOT/.aeh)';

/** `aeh suite`. */
export const SUITE_USAGE = 'aeh suite run (--scenarios ID|FILE.json[,…] | --query "industry=finance&tag=pii") [--agent NAME|@spec.json]… [--name N] [--cache] [--fail-on-severity S] [--must-pass IDS] [--min-pass-rate R] [--pass-threshold T] [--no-wait] [--stall-s 900] [--json] [--url URL] [--key KEY]\n       aeh suite show <suite_id> [--json]\n       aeh suite list [--limit N] [--json]';

/** `aeh bench`. */
export const BENCH_USAGE = 'aeh bench tau --domain retail|airline|telecom|all --agent NAME|JSON|FILE [--trials 4] [--split base] [--tasks N] [--data DIR] [--report FILE] [--stall-s 900] [--json] [--url URL] [--key KEY]\n       aeh bench agentdojo --suite workspace|travel|banking|slack|all --agent NAME|JSON|FILE [--attack important_instructions|none] [--benchmark-version v1.2.1|v1.1.2] [--user-tasks IDS] [--injection-tasks IDS] [--model-name NAME] [--report FILE] [--stall-s 900] [--json] [--url URL] [--key KEY]\n       aeh bench agentdojo --replay RECORDS.json.gz[,…] [--benchmark-version v1.2.1|v1.1.2] [--stall-s 900] [--json]';

/** `aeh gc` (docs/cli.md). */
export const GC_USAGE = 'aeh gc [--max-age-days N] [--keep-runs N] [--dry-run] [--json] [--url URL] [--key KEY]';
