/**
 * Node entry (`npm start`): the only place that reads `process.env`. Serves the API and console until
 * SIGINT/SIGTERM, then drains and closes storage.
 */
import { startNodeService } from './node/start.ts';
import { consoleLogger } from '../core/runtime.ts';

const logger = consoleLogger();
try {
  const service = await startNodeService(process.env, process.cwd(), logger);
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
