/**
 * `aeh serve [--port N] [--host H] [--json]`: the same as `npm start` (API and console), with the listen
 * address optionally overridden; prints the address once listening (`--json`: `{"url": ...}`), stops on
 * SIGINT/SIGTERM. Run by Deno or Bun (`deno run -A npm:agent-eval-harness/aeh serve`, `bunx --bun aeh serve`),
 * it serves through that runtime's entry (`runtime/deno.ts`, `runtime/bun.ts`) instead of Node's.
 */
import { parseArgs } from 'node:util';
import { EXIT, line, type Io } from '../io.ts';
import { consoleLogger, type Logger } from '../../core/capabilities.ts';
import { installPrecompiledValidators } from '../../runtime/node/precompiled.ts';

type StartService = (env: Record<string, string | undefined>, cwd: string, logger: Logger) => Promise<{ url: string; stop(): Promise<void> }>;

/** The entry of the runtime running this process. Imported after the validators are installed, as npm start does. */
async function runtimeService(): Promise<StartService> {
  if ('Deno' in globalThis) return (await import('../../runtime/deno.ts')).startDenoService;
  if ('Bun' in globalThis) return (await import('../../runtime/bun.ts')).startBunService;
  return (await import('../../runtime/node/start.ts')).startNodeService;
}

const USAGE = 'usage: aeh serve [--port N] [--host HOST] [--json]   (default: PORT, HOST, else 8787 on 127.0.0.1)';

function stderrLogger(io: Io): Logger {
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => line(io.stderr, JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }));
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

/** Runs `aeh serve` until a termination signal; returns the exit code. */
export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { port: { type: 'string' }, host: { type: 'string' }, json: { type: 'boolean', default: false } } });
  if (positionals.length > 0 || (values.port !== undefined && !/^\d{1,5}$/.test(values.port))) {
    line(io.stderr, USAGE);
    return EXIT.error;
  }
  const env = { ...io.env, ...(values.port !== undefined ? { PORT: values.port } : {}), ...(values.host ? { HOST: values.host } : {}) };
  // With --json, stdout carries only the address document; the service's own log lines go to stderr.
  // Before the plugins load (they are imported with the runtime's entry), so their schemas resolve to the
  // validators the build precompiled (dist/validators.generated.js; from the sources there are none).
  await installPrecompiledValidators();
  const startService = await runtimeService();
  const service = await startService(env, io.cwd, values.json ? stderrLogger(io) : consoleLogger());
  line(io.stdout, values.json ? JSON.stringify({ url: service.url }) : `aeh: serving the API and console on ${service.url} (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await service.stop();
  return EXIT.pass;
}
