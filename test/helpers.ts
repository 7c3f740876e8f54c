/**
 * Test kit: builds the app with memory storage and a known key, and sends requests through `app.request()`
 * (no sockets). Every HTTP test starts here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type Config } from '../core/config.ts';
import { createApp, type AehApp, type CreateAppOptions } from '../core/app.ts';
import type { Plugin } from '../core/plugin.ts';
import { silentLogger, type RuntimeCapabilities } from '../core/capabilities.ts';
import { nodeCapabilities } from '../runtime/node/capabilities.ts';
import { nodePlugins } from '../runtime/node/plugins.ts';
import { afterEachFile } from './file-cleanup.ts';

export const TEST_KEY = 'a'.repeat(64);

/**
 * A relative path that climbs to `/etc/passwd` from any folder: a path resolves no higher than `/`, so enough
 * `..` reach it however deep the test's PROJECT_ROOT lies (four reached only /tmp under a nested TMPDIR, which
 * the jail allows).
 */
export const CLIMB_TO_ETC_PASSWD = `${'../'.repeat(64)}etc/passwd`;

export interface TestAppOptions extends CreateAppOptions {
  /** Extra environment variables (over `DASHBOARD_API_KEY`, `AEH_STORAGE=memory`, a fresh `PROJECT_ROOT`). */
  env?: Record<string, string | undefined>;
  /** Plugins added after the bundled ones. */
  plugins?: Plugin[];
  /** Replace the bundled plugins entirely. */
  only?: Plugin[];
  capabilities?: Partial<RuntimeCapabilities>;
}

export interface TestApp {
  app: AehApp;
  config: Config;
  root: string;
  /** Sends a request; `key: null` sends no credential; `body` objects are sent as JSON. */
  request(method: string, path: string, options?: { body?: unknown; raw?: BodyInit; headers?: Record<string, string>; key?: string | null }): Promise<Response>;
  json<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; key?: string | null }): Promise<{ status: number; body: T; headers: Headers }>;
}

/** The apps this test file built, closed after it. */
const built = new Set<AehApp>();

/**
 * Closes every app `testApp` built and not yet closed: stop hooks run (the engine stops its tasks), storage
 * closes. Test files share a worker process (vitest.config.ts, `isolate: false`), so work a file left running
 * would otherwise go on during the next one, and call the agent servers it mocks.
 */
async function closeTestApps(): Promise<void> {
  const apps = [...built];
  built.clear();
  await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
}
afterEachFile(closeTestApps);

export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const root = mkdtempSync(join(tmpdir(), 'aeh-test-'));
  const config = parseConfig({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root, ...options.env }, root);
  const capabilities: RuntimeCapabilities = { ...nodeCapabilities(root, silentLogger), logger: silentLogger, ...options.capabilities };
  const plugins = options.only ?? [...nodePlugins(), ...(options.plugins ?? [])];
  const app = createApp(config, plugins, capabilities, options);
  built.add(app);
  const close = app.close;
  // Closed by the test itself: not again after the file.
  app.close = () => {
    built.delete(app);
    return close();
  };
  await app.ready;
  const request: TestApp['request'] = (method, path, { body, raw, headers = {}, key = TEST_KEY } = {}) => {
    const finalHeaders: Record<string, string> = { ...headers };
    if (key) finalHeaders['X-API-Key'] = key;
    let payload: BodyInit | undefined = raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      finalHeaders['content-type'] ??= 'application/json';
    }
    return Promise.resolve(app.request(path, { method, headers: finalHeaders, body: payload }));
  };
  return {
    app,
    config,
    root,
    request,
    async json(method, path, requestOptions) {
      const response = await request(method, path, requestOptions);
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // leave as text
      }
      return { status: response.status, body: parsed as any, headers: response.headers };
    },
  };
}
