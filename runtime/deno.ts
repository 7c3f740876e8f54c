/**
 * Deno entry: `deno run -A runtime/deno.ts` (with node_modules from `npm install`). Deno runs the same
 * builder as Node through its Node compatibility (node:fs, node:crypto for native SHA3) and serves
 * `app.fetch` with `Deno.serve`.
 */
import { buildNodeApp } from './node/start.ts';
import { startScheduler } from '../core/scheduler.ts';
import { consoleLogger } from '../core/capabilities.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  cwd(): string;
  version: { deno: string };
  serve(options: { hostname: string; port: number; onListen?(address: { hostname: string; port: number }): void }, handler: (request: Request) => Response | Promise<Response>): { finished: Promise<void> };
  exit(code: number): never;
};

const logger = consoleLogger();
try {
  const { app, config } = await buildNodeApp(Deno.env.toObject(), Deno.cwd(), logger, { name: 'deno', version: Deno.version.deno });
  startScheduler(await app.ready);
  Deno.serve({ hostname: config.host, port: config.port, onListen: ({ hostname, port }) => logger.info(`listening on http://${hostname}:${port}`, { runtime: 'deno' }) }, app.fetch);
} catch (error) {
  logger.error(`could not start: ${(error as Error).message}`);
  Deno.exit(1);
}
