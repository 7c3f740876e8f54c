/** Usage lines shared by the command table (`aeh <command> --help`) and the commands' own usage errors. */

/** `aeh evaluate`. */
export const EVALUATE_USAGE = 'aeh evaluate <path|scenario-id> [--url URL] [--key KEY] [--format text|json|junit|markdown] [--output FILE] [--summary FILE] [--artifacts DIR] [--allow-warning] [--json] [--timeout SECONDS]';
