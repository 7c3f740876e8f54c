/**
 * `aeh` — the command line for people and pipelines, on the same API as the service. One table of commands;
 * each is `(argv, io) => exit code`.
 */
import type { Io } from './io.ts';
import { EXIT, line } from './io.ts';

type Command = (argv: string[], io: Io) => Promise<number>;

/** Each command is loaded only when called, so `aeh verify` never builds the service. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'serve the API and console (same as npm start)', load: async () => (await import('./commands/serve.ts')).serveCommand },
  evaluate: { summary: 'evaluate a scenario file or catalog id; exit 0 pass, 1 fail, 2 warning, 3 error', load: async () => (await import('./commands/evaluate.ts')).evaluateCommand },
  verify: { summary: 'verify a certificate offline against its trace, sidecars and a JWKS; exit 0 valid, 1 invalid, 2 expired, 3 error', load: async () => (await import('./verify.ts')).verifyCommand },
  keys: { summary: 'rotate the local signing key (retired keys stay published)', load: async () => (await import('./keys.ts')).keysCommand },
  mutate: { summary: 'produce perturbed variants of a scenario', load: async () => (await import('./commands/mutate.ts')).mutateCommand },
  'spec-to-eval': { summary: 'turn a Markdown PRD into scenario stubs', load: async () => (await import('./commands/spec-to-eval.ts')).specToEvalCommand },
  doctor: { summary: 'check the environment; exit 1 when a check fails', load: async () => (await import('./commands/doctor.ts')).doctorCommand },
  scenarios: { summary: 'search the scenario catalog', load: async () => (await import('./commands/scenarios.ts')).scenariosCommand },
};

function usage(io: Io): void {
  line(io.stderr, 'usage: aeh <command> [options]   (--json for machine-readable output; --url/--key to use a running service)');
  for (const [name, command] of Object.entries(COMMANDS)) line(io.stderr, `  ${name.padEnd(13)} ${command.summary}`);
}

/** Runs the command line and returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    usage(io);
    return name ? EXIT.pass : EXIT.error;
  }
  const command = COMMANDS[name];
  if (!command) {
    line(io.stderr, `aeh: unknown command "${name}"`);
    usage(io);
    return EXIT.error;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // parseArgs reports unknown or malformed options with these codes: a usage error, not a crash.
    line(io.stderr, `aeh ${name}: ${(error as Error).message}`);
    return code?.startsWith('ERR_PARSE_ARGS') ? EXIT.error : EXIT.error;
  }
}
