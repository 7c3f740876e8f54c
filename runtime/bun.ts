/**
 * Bun entry: `bun runtime/bun.ts`, and what `aeh serve` runs on Bun. Bun runs the same builder as Node through
 * its Node compatibility (node:fs, node:crypto for native SHA3) and serves `app.fetch` with `Bun.serve`.
 */
import { buildAndListen, type Listening } from './node/start.ts';
import { startScheduler } from '../core/scheduler.ts';
import { consoleLogger, type Logger } from '../core/capabilities.ts';

declare const Bun: {
  version: string;
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Response | Promise<Response> }): { port: number; hostname: string; stop(closeActiveConnections?: boolean): Promise<void> };
};

/** Builds the app for `env` and serves it with `Bun.serve` until `stop()`. */
export async function startBunService(env: Record<string, string | undefined>, cwd: string, logger: Logger = consoleLogger()): Promise<{ url: string; stop(): Promise<void> }> {
  const listen = async (hostname: string, port: number, fetch: (request: Request) => Response | Promise<Response>): Promise<Listening & { hostname: string }> => {
    const server = Bun.serve({ hostname, port, fetch });
    return { hostname: server.hostname, port: server.port, close: () => server.stop() };
  };
  const { app, server } = await buildAndListen(env, cwd, logger, listen, { name: 'bun', version: Bun.version });
  const services = await app.ready;
  const stopScheduler = startScheduler(services);
  const url = `http://${server.hostname.includes(':') ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  logger.info(`listening on ${url}`, { runtime: 'bun' });
  return {
    url,
    async stop() {
      stopScheduler();
      await server.close();
      await app.close();
      await services.capabilities.offload?.close();
    },
  };
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const logger = consoleLogger();
  try {
    await startBunService(process.env, process.cwd(), logger);
  } catch (error) {
    logger.error(`could not start: ${(error as Error).message}`);
    process.exit(1);
  }
}
