/** `aeh serve`: the same as `npm start`. */
import type { Io } from '../io.ts';
import { startNodeService } from '../../runtime/node/start.ts';

export async function serveCommand(_argv: string[], io: Io): Promise<number> {
  const service = await startNodeService(io.env, io.cwd);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await service.stop();
  return 0;
}
