/**
 * Node entry (`npm start`): the only place that reads `process.env`. Serves the API and console until
 * SIGINT/SIGTERM, then drains and closes storage.
 */
import { consoleLogger } from '../core/capabilities.ts';
import { installPrecompiledValidators } from './node/precompiled.ts';
import { startCatalogPrefetch } from './node/catalog-prefetch.ts';

const logger = consoleLogger();
try {
  // First: a worker loads the catalog's files on the other core while this thread loads the service.
  const catalogPrefetch = startCatalogPrefetch(process.env, process.cwd());
  // Before the plugins load (a dynamic import below), so their schemas resolve to the precompiled validators.
  await installPrecompiledValidators();
  const { startNodeService } = await import('./node/start.ts');
  const service = await startNodeService(process.env, process.cwd(), logger, catalogPrefetch ? { catalogPrefetch } : {});
  const shutdown = (signal: string) => {
    logger.info(`${signal}: shutting down`);
    service.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  logger.error(`could not start: ${(error as Error).message}`);
  process.exit(1);
}
