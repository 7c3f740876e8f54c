/**
 * Deno entry: `deno run -A runtime/deno.ts` (with node_modules from `npm install`), and what `aeh serve` runs on
 * Deno. Deno runs the same builder as Node through its Node compatibility (node:fs, node:crypto for native
 * SHA3) and serves `app.fetch` with `Deno.serve`.
 */
import { buildAndListen, type Listening } from './node/start.ts';
import { startScheduler } from '../core/scheduler.ts';
import { consoleLogger, type Logger } from '../core/capabilities.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  cwd(): string;
  version: { deno: string };
  serve(options: { hostname: string; port: number; onListen?(address: { hostname: string; port: number }): void }, handler: (request: Request) => Response | Promise<Response>): { finished: Promise<void>; shutdown(): Promise<void> };
  exit(code: number): never;
};

/** Builds the app for `env` and serves it with `Deno.serve` until `stop()`. */
export async function startDenoService(env: Record<string, string | undefined>, cwd: string, logger: Logger = consoleLogger()): Promise<{ url: string; stop(): Promise<void> }> {
  const listen = async (hostname: string, port: number, fetch: (request: Request) => Response | Promise<Response>): Promise<Listening & { hostname: string }> => {
    let server!: ReturnType<typeof Deno.serve>;
    const address = await new Promise<{ hostname: string; port: number }>((resolve) => {
      server = Deno.serve({ hostname, port, onListen: resolve }, fetch);
    });
    return { hostname: address.hostname, port: address.port, close: () => server.shutdown() };
  };
  const { app, server } = await buildAndListen(env, cwd, logger, listen, { name: 'deno', version: Deno.version.deno });
  const services = await app.ready;
  const stopScheduler = startScheduler(services);
  const url = `http://${server.hostname.includes(':') ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  logger.info(`listening on ${url}`, { runtime: 'deno' });
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
    await startDenoService(Deno.env.toObject(), Deno.cwd(), logger);
  } catch (error) {
    logger.error(`could not start: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
