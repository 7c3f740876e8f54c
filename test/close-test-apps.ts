/**
 * A vitest setup file: what one test file changes in the worker process it shares with others
 * (vitest.config.ts, `isolate: false`) is undone after it, as a process of its own would have been.
 * - What helpers registered in test/file-cleanup.ts runs: the apps `testApp` built are closed.
 * - The global `Request` and `Response` are put back: @hono/node-server replaces them with its own lighter
 *   classes when a file starts a server in-process, and msw's `HttpResponse.error()` is a network error only
 *   with the platform's `Response` (the next file's mocked network error answered `status 0` instead).
 * - @hono/node-server is loaded before any file runs (below).
 */
import { afterAll } from 'vitest';
// Loaded here, before any file's msw server patches the globals: @hono/node-server builds its own `Request` on the
// global one it finds when first imported, and keeps it for the worker's life. First imported by a file that had
// msw listening (the CLI starting its service in-process: cli-usage, cli-bench-tau), it extended msw's proxy,
// which after that server closed failed every later request of the worker's other files with
// "inferRawHeaders(...) is not iterable" (test/hostile/limits.test.ts after test/cli-usage.test.ts).
import '@hono/node-server';
import { runFileCleanups } from './file-cleanup.ts';

const PLATFORM = Symbol.for('aeh.test.platformGlobals');
type Globals = { Request: typeof Request; Response: typeof Response };
const holder = globalThis as typeof globalThis & { [PLATFORM]?: Globals };
// The first file in this process sees the platform's classes; later files find them kept here.
holder[PLATFORM] ??= { Request: globalThis.Request, Response: globalThis.Response };
const platform = holder[PLATFORM];

afterAll(async () => {
  await runFileCleanups();
  for (const name of ['Request', 'Response'] as const) {
    if (globalThis[name] !== platform[name]) Object.defineProperty(globalThis, name, { value: platform[name], writable: true, configurable: true });
  }
});
