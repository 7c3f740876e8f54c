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

/** Builds the app for an environment (no listening); generates the key on first start. */
export async function buildNodeApp(
  processEnv: Record<string, string | undefined>,
  cwd: string,
  logger: Logger = consoleLogger(),
  runtime?: { name: string; version: string },
  ahead: Pick<RuntimeCapabilities, 'catalogPrefetch'> = {},
): Promise<{ app: AehApp; config: Config }> {
  const root = resolve(cwd, processEnv.PROJECT_ROOT?.trim() || '.');
  // An empty variable in the shell (`DASHBOARD_API_KEY=`) means "not set": it must not hide the key in .env,
  // or every start would generate a new one.
  const setInProcess = Object.fromEntries(Object.entries(processEnv).filter(([, value]) => value !== undefined && value !== ''));
  const env: Record<string, string | undefined> = { ...readEnvFile(root), ...setInProcess, PROJECT_ROOT: root };
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
  const { app, config } = await buildNodeApp(processEnv, cwd, logger, undefined, ahead);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(listening));
    listening.once('error', reject);
  });
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
