/**
 * `aeh serve [--port N] [--host H] [--json]`: the same as `npm start` (API and console), with the listen
 * address optionally overridden; prints the address once listening (`--json`: `{"url": ...}`), stops on
 * SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { EXIT, line, type Io } from '../io.ts';
import { startNodeService } from '../../runtime/node/start.ts';
import { consoleLogger, type Logger } from '../../core/capabilities.ts';

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
  const service = await startNodeService(env, io.cwd, values.json ? stderrLogger(io) : consoleLogger());
  line(io.stdout, values.json ? JSON.stringify({ url: service.url }) : `aeh: serving the API and console on ${service.url} (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await service.stop();
  return EXIT.pass;
}
