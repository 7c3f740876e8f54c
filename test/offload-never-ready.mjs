/**
 * An offload worker that starts and never says it is ready, as one whose loader deadlocked would not: it only
 * listens, which keeps it alive (runtime/node/offload.test.ts, the pool's start deadline; issue 36).
 */
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => undefined);
