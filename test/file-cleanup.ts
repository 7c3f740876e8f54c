/**
 * What a test file leaves in the worker process it shares with others (vitest.config.ts, `isolate: false`)
 * and must not: helpers register how to undo it here, and test/close-test-apps.ts runs that after each file.
 * Kept free of imports so that the setup file loads nothing a unit test does not need.
 */
const cleanups = new Set<() => Promise<void> | void>();

/** Runs `cleanup` after the current test file (and after every later one, until it is removed). */
export function afterEachFile(cleanup: () => Promise<void> | void): void {
  cleanups.add(cleanup);
}

/** Runs every registered cleanup; one that fails does not stop the others. */
export async function runFileCleanups(): Promise<void> {
  await Promise.all([...cleanups].map(async (cleanup) => {
    try {
      await cleanup();
    } catch {
      // the next file starts anyway
    }
  }));
}
