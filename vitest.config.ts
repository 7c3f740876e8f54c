import { defineConfig } from 'vitest/config';

/** Every test file of the repository. */
const ALL = ['core/**/*.test.ts', 'cli/**/*.test.ts', 'plugins/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'runtime/**/*.test.ts'];

/**
 * The suites `npm run test:all` adds to `npm test`: they need what a fresh clone's machine may not have
 * (Chromium, redis-server), install or fetch more from npm (the packed package on Node, Deno and Bun), or start
 * the other runtimes (Deno, Bun, workerd). Each skips, saying why, where its tool is missing (outside CI).
 */
const MORE = [
  'test/browser/**/*.test.ts', // headless Chromium
  'test/storage-redis.test.ts', // redis-server
  'test/scale-out.test.ts', // redis-server, two instances
  'plugins/queue-bullmq/queue.test.ts', // redis-server
  'test/package.test.ts', // npm pack + npm install, then Node, Deno and Bun
  'test/runtimes.test.ts', // Deno, Bun and workerd
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/close-test-apps.ts'],
    // Hang guards, not timing assertions: a machine running other suites, builds and busy loops stretches wall
    // time several-fold (issue 36), and a test must not fail because the machine is busy. Tests that bound work
    // do it in CPU time (test/cpu-time.ts); waits poll for an event within the same generous guards.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Processes, not threads: tests start servers and workers, and a crash stays in its own process.
    pool: 'forks',
    // Two files at a time even on two cores: most wait on child processes and sockets, not the CPU.
    maxWorkers: 2,
    // One module graph per worker instead of one per file: importing the bundled plugins per file was a third
    // of the suite's time. Safe because every test builds its own app (test/helpers.ts) and restores what it
    // changes (fake timers, msw servers), and the apps a file built are closed after it (test/close-test-apps.ts);
    // a test that leaks state into the next file is a bug to fix.
    isolate: false,
    reporters: ['default'],
    // Transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache, keyed by each file's
    // content, path and the transform's configuration; this config adds no transform plugin whose options it could
    // miss): a rerun skips transforming the sources again, ~3-5 CPU-s of 36 core/ files at load 8-11 (issue 36). A
    // fresh clone has none and transforms everything, as before.
    experimental: { fsModuleCache: true },
    projects: [
      { extends: true, test: { name: 'main', include: ALL, exclude: ['**/node_modules/**', ...MORE] } },
      { extends: true, test: { name: 'more', include: MORE } },
    ],
  },
});
