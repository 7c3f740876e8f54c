/**
 * `aeh` — the command line for people and pipelines, on the same API as the service. One table of commands;
 * each is `(argv, io) => exit code`.
 */
import type { Io } from './io.ts';
import { EXIT, line } from './io.ts';
import { BASELINE_USAGE, BENCH_USAGE, COMPARE_USAGE, EVALUATE_USAGE, GC_USAGE, IMPORT_USAGE, KEYS_USAGE, REPORT_USAGE, SUITE_USAGE } from './usage.ts';

type Command = (argv: string[], io: Io) => Promise<number>;

/** Each command is loaded only when called, so `aeh verify` never builds the service. */
const COMMANDS: Record<string, { summary: string; usage: string; load: () => Promise<Command> }> = {
  serve: { summary: 'serve the API and console (same as npm start)', usage: 'aeh serve [--port N] [--host HOST] [--json]', load: async () => (await import('./commands/serve.ts')).serveCommand },
  evaluate: { summary: 'evaluate a scenario file or catalog id; exit 0 pass, 1 fail, 2 warning, 3 error, 4 regression (--baseline)', usage: EVALUATE_USAGE, load: async () => (await import('./commands/evaluate.ts')).evaluateCommand },
  compare: { summary: 'compare two finished runs (or a run with its latest or pinned baseline); exit 0, 4 regression, 3 error', usage: COMPARE_USAGE, load: async () => (await import('./commands/compare.ts')).compareCommand },
  baseline: { summary: 'pin a run as the baseline of its scenario and agent, show or unpin it; exit 0, 3 error', usage: BASELINE_USAGE, load: async () => (await import('./commands/baseline.ts')).baselineCommand },
  report: { summary: 'write the self-contained HTML report of a run or a suite', usage: REPORT_USAGE, load: async () => (await import('./commands/report.ts')).reportCommand },
  verify: { summary: 'verify a certificate offline against its trace, sidecars and a JWKS (or alone: --certificate-only); exit 0 valid, 1 invalid, 2 expired, 3 error', usage: 'aeh verify <certificate.json> (--trace <file> [--sidecars <dir>] | --certificate-only) --jwks <url-or-file> [--require-role <role>]... [--require-origin catalog|file|inline] [--refuse-cached] [--json]', load: async () => (await import('./verify.ts')).verifyCommand },
  keys: { summary: 'rotate the local signing key (retired keys stay published)', usage: KEYS_USAGE, load: async () => (await import('./keys.ts')).keysCommand },
  mutate: { summary: 'produce perturbed variants of a scenario', usage: 'aeh mutate <path|scenario-id> --type TYPE[,TYPE…] [--seed N] [--count N] [--json] [--url URL] [--key KEY]', load: async () => (await import('./commands/mutate.ts')).mutateCommand },
  'spec-to-eval': { summary: 'turn a Markdown PRD into scenario stubs; exit 1 on pitfalls', usage: 'aeh spec-to-eval <prd.md> [--persist] [--json] [--url URL] [--key KEY]', load: async () => (await import('./commands/spec-to-eval.ts')).specToEvalCommand },
  doctor: { summary: 'check the environment; exit 1 when a check fails', usage: 'aeh doctor [--json] [--url URL] [--key KEY]', load: async () => (await import('./commands/doctor.ts')).doctorCommand },
  bench: { summary: 'run τ-bench or AgentDojo as written against an agent (a certified suite); prints the benchmark\'s table', usage: BENCH_USAGE, load: async () => (await import('./commands/bench.ts')).benchCommand },
  suite: { summary: 'evaluate scenarios × agents as a suite, with progress and a per-agent summary; exit 0 all passed, 1 not, 3 error', usage: SUITE_USAGE, load: async () => (await import('./commands/suite.ts')).suiteCommand },
  import: { summary: 'turn a CSV or JSONL dataset into a scenario; exit 1 when rows have problems', usage: IMPORT_USAGE, load: async () => (await import('./commands/import.ts')).importCommand },
  gc: { summary: "delete old runs' evidence under the retention rules and unreferenced blobs (certificates stay); exit 0, 3 error", usage: GC_USAGE, load: async () => (await import('./commands/gc.ts')).gcCommand },
  scenarios: { summary: 'search the scenario catalog', usage: 'aeh scenarios [words…] [--industry X] [--use-case X] [--tag X] [--dimension X] [--limit N] [--offset N] [--json] [--url URL] [--key KEY]', load: async () => (await import('./commands/scenarios.ts')).scenariosCommand },
};

/** The command names, in the order `aeh --help` lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The command table: to stdout when asked for (`aeh --help`, `aeh help`), to stderr after a usage error. */
function usage(out: Io['stdout']): void {
  line(out, 'usage: aeh <command> [options]   (--json for machine-readable output; --url/--key to use a running service)');
  for (const [name, command] of Object.entries(COMMANDS)) line(out, `  ${name.padEnd(13)} ${command.summary}`);
  line(out, 'aeh <command> --help prints its usage (see docs/cli.md)');
}

/** Runs the command line and returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    const asked = rest[0] ? COMMANDS[rest[0]] : undefined;
    if (asked) line(io.stdout, `${asked.summary}\nusage: ${asked.usage}\n(see docs/cli.md)`);
    else usage(io.stdout);
    return EXIT.pass;
  }
  if (!name) {
    usage(io.stderr);
    return EXIT.error;
  }
  const command = COMMANDS[name];
  if (!command) {
    line(io.stderr, `aeh: unknown command "${name}"`);
    usage(io.stderr);
    return EXIT.error;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    line(io.stdout, `${command.summary}\nusage: ${command.usage}\n(see docs/cli.md)`);
    return EXIT.pass;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (error) {
    // parseArgs reports unknown or malformed options (ERR_PARSE_ARGS_*), file and network errors land here too:
    // one readable line and exit 3, never a stack trace.
    line(io.stderr, `aeh ${name}: ${(error as Error).message}`);
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) line(io.stderr, `usage: ${command.usage}`);
    return EXIT.error;
  }
}
