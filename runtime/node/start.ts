/**
 * Starts the service on Node: configuration from the environment and `.env`, first-start key generation,
 * users' plugins, then `app.fetch` served by @hono/node-server. Used by `runtime/node.ts`, the CLI and tests.
 */
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import type { ServerType } from '@hono/node-server';
import { parseConfig, type Config } from '../../core/config.ts';
import { createApp, type AehApp } from '../../core/app.ts';
import { consoleLogger, type Logger, type RuntimeCapabilities } from '../../core/capabilities.ts';
import { nodeCapabilities } from './capabilities.ts';
import { generateApiKey, readEnvFile } from './env-file.ts';
import { loadUserPlugins } from './user-plugins.ts';
import { nodePlugins } from './plugins.ts';
import { startScheduler } from '../../core/scheduler.ts';
import { workerPoolFromEnv } from './offload.ts';

export interface NodeService {
  app: AehApp;
  config: Config;
  server: ServerType;
  /** The address actually listened on (port 0 picks a free one). */
  url: string;
  stop(): Promise<void>;
}

/** The environment a start reads: the project's `.env`, then the process's variables over it. */
function startEnv(processEnv: Record<string, string | undefined>, cwd: string): Record<string, string | undefined> {
  const root = resolve(cwd, processEnv.PROJECT_ROOT?.trim() || '.');
  // An empty variable in the shell (`DASHBOARD_API_KEY=`) means "not set": it must not hide the key in .env,
  // or every start would generate a new one.
  const setInProcess = Object.fromEntries(Object.entries(processEnv).filter(([, value]) => value !== undefined && value !== ''));
  return { ...readEnvFile(root), ...setInProcess, PROJECT_ROOT: root };
}

/** A runtime's server once it listens: the port it got, and how to stop it. */
export interface Listening {
  port: number;
  close(): Promise<void>;
}

/** Starts a runtime's server for `fetch` on `host:port` (0: a port the system picks). */
export type Listen<L extends Listening> = (host: string, port: number, fetch: AehApp['fetch']) => Promise<L>;

/** What a request to a server still building its app gets. */
const starting = () => new Response('{"title":"the service is starting"}', { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' } });

/** Builds the app for an environment (no listening); generates the key on first start. */
export async function buildNodeApp(
  processEnv: Record<string, string | undefined>,
  cwd: string,
  logger: Logger = consoleLogger(),
  runtime?: { name: string; version: string },
  ahead: Pick<RuntimeCapabilities, 'catalogPrefetch'> = {},
): Promise<{ app: AehApp; config: Config }> {
  const env = startEnv(processEnv, cwd);
  let config = parseConfig(env, cwd);
  if (!config.apiKey) {
    const { key, path } = generateApiKey(config.projectRoot);
    logger.warn(`no DASHBOARD_API_KEY was set: generated one and wrote it to ${path} (mode 0600); read it from there`);
    config = parseConfig({ ...env, DASHBOARD_API_KEY: key }, cwd);
  }
  // Deno and Bun run this same builder through their Node compatibility; they only name themselves.
  // Deno and Bun load TypeScript natively, workers included; Node's workers load it through tsx.
  const offload = workerPoolFromEnv(env, availableParallelism(), runtime ? 'native' : 'tsx', logger);
  const capabilities = { ...nodeCapabilities(config.projectRoot, logger), ...ahead, ...(runtime ? { runtime } : {}), ...(offload ? { offload } : {}) };
  const user = await loadUserPlugins(config.projectRoot, config.plugins, capabilities);
  const app = createApp(config, [...nodePlugins(), ...user.plugins], capabilities, { userPlugins: user.plugins.map((plugin) => plugin.name), settings: user.settings });
  await app.ready;
  return { app, config };
}

/**
 * Builds the app and has the runtime's `listen` serve it (Node, Bun and Deno each pass theirs). With `PORT=0` the
 * system picks the port: the server then listens before the app is built, answering 503 meanwhile, so that the
 * app knows the port it serves on (the MCP tool URLs it gives agents, the SSRF guard's own address), never 0.
 * Any other port is listened on once the app is ready, with its `fetch` served directly.
 */
export async function buildAndListen<L extends Listening>(
  processEnv: Record<string, string | undefined>,
  cwd: string,
  logger: Logger,
  listen: Listen<L>,
  runtime?: { name: string; version: string },
  ahead: Pick<RuntimeCapabilities, 'catalogPrefetch'> = {},
): Promise<{ app: AehApp; config: Config; server: L }> {
  const requested = parseConfig(startEnv(processEnv, cwd), cwd);
  if (requested.port !== 0) {
    const { app, config } = await buildNodeApp(processEnv, cwd, logger, runtime, ahead);
    return { app, config, server: await listen(config.host, config.port, app.fetch) };
  }
  let built: AehApp | undefined;
  const server = await listen(requested.host, 0, (request, ...rest) => (built ? built.fetch(request, ...rest) : starting()));
  try {
    const { app, config } = await buildNodeApp({ ...processEnv, PORT: String(server.port) }, cwd, logger, runtime, ahead);
    built = app;
    return { app, config, server };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * `Listen` on Node: @hono/node-server, imported here, when a server starts: a CLI command that builds the app
 * in-process never listens, and loading the package was ~45 ms CPU of each one (issue 36).
 */
async function listenNode(host: string, port: number, fetch: AehApp['fetch']): Promise<Listening & { server: ServerType }> {
  const { serve } = await import('@hono/node-server');
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname: host, port }, () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
    server.once('error', reject);
  });
}

/** Builds the app and listens on `HOST`/`PORT`; `ahead` holds work the entry started before it loaded the app. */
export async function startNodeService(processEnv: Record<string, string | undefined>, cwd: string, logger: Logger = consoleLogger(), ahead: Pick<RuntimeCapabilities, 'catalogPrefetch'> = {}): Promise<NodeService> {
  const { app, config, server: listening } = await buildAndListen(processEnv, cwd, logger, listenNode, undefined, ahead);
  const stopScheduler = startScheduler(await app.ready);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${listening.port}`;
  logger.info(`listening on ${url}`, { storage: config.storage, project_root: config.projectRoot });
  return {
    app,
    config,
    server: listening.server,
    url,
    async stop() {
      stopScheduler();
      await listening.close();
      await app.close();
      await (await app.ready).capabilities.offload?.close();
    },
  };
}
