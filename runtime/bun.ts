/**
 * Bun entry: `bun runtime/bun.ts`. Bun runs the same builder as Node through its Node compatibility
 * (node:fs, node:crypto for native SHA3) and serves `app.fetch` with `Bun.serve`.
 */
import { buildNodeApp } from './node/start.ts';
import { startScheduler } from '../core/scheduler.ts';
import { consoleLogger } from '../core/capabilities.ts';

declare const Bun: {
  version: string;
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Response | Promise<Response> }): { port: number; hostname: string };
};

const logger = consoleLogger();
try {
  const { app, config } = await buildNodeApp(process.env, process.cwd(), logger, { name: 'bun', version: Bun.version });
  startScheduler(await app.ready);
  const server = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch });
  logger.info(`listening on http://${server.hostname}:${server.port}`, { runtime: 'bun' });
} catch (error) {
  logger.error(`could not start: ${(error as Error).message}`);
  process.exit(1);
}
