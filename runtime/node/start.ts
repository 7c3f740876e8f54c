/**
 * Starts the service on Node: configuration from the environment and `.env`, first-start key generation,
 * users' plugins, then `app.fetch` served by @hono/node-server. Used by `runtime/node.ts`, the CLI and tests.
 */
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { serve, type ServerType } from '@hono/node-server';
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

/** Listens on `host:port` with a handler that may be set later (`undefined`: 503 while the app starts). */
function listen(host: string, port: number, handler: () => AehApp['fetch'] | undefined): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const starting = () => new Response('{"title":"the service is starting"}', { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' } });
    const listening = serve({ fetch: (request, env) => (handler() ?? starting)(request, env), hostname: host, port }, () => resolve(listening));
    listening.once('error', reject);
  });
}

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

/** Builds the app and listens on `HOST`/`PORT`; `ahead` holds work the entry started before it loaded the app. */
export async function startNodeService(processEnv: Record<string, string | undefined>, cwd: string, logger: Logger = consoleLogger(), ahead: Pick<RuntimeCapabilities, 'catalogPrefetch'> = {}): Promise<NodeService> {
  // `PORT=0` lets the system pick a free port: the server listens before the app is built, so that the app knows
  // the port it serves on (the MCP tool URLs it gives agents, the SSRF guard's own address), never 0.
  const requested = parseConfig(startEnv(processEnv, cwd), cwd);
  let built: AehApp | undefined;
  const early = requested.port === 0 ? await listen(requested.host, 0, () => built?.fetch) : undefined;
  const picked = early?.address();
  const env = picked && typeof picked === 'object' ? { ...processEnv, PORT: String(picked.port) } : processEnv;
  const { app, config } = await buildNodeApp(env, cwd, logger, undefined, ahead).catch(async (error) => {
    if (early) await new Promise<void>((resolve) => early.close(() => resolve()));
    throw error;
  });
  built = app;
  const server = early ?? await listen(config.host, config.port, () => app.fetch);
  const stopScheduler = startScheduler(await app.ready);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info(`listening on ${url}`, { storage: config.storage, project_root: config.projectRoot });
  return {
    app,
    config,
    server,
    url,
    async stop() {
      stopScheduler();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await (await app.ready).capabilities.offload?.close();
    },
  };
}
