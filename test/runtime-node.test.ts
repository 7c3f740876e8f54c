/**
 * The Node runtime for real: sockets, not `app.request()`. One in-process `startNodeService` on a free port,
 * then the two ways an operator starts the service as a child process: `npm start` (compiled dist/) and
 * `node --import tsx runtime/node.ts`.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNodeService, type NodeService } from '../runtime/node/start.ts';
import { TEST_KEY } from './helpers.ts';
import { captureLogger } from './foundation-fixtures.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const freshRoot = () => mkdtempSync(join(tmpdir(), 'aeh-runtime-'));

interface RawResponse { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** An HTTP/1.1 request with exactly the header names given (case kept) and optionally a chunked body. */
function raw(url: string, options: { method?: string; path: string; headers?: Array<[string, string]>; chunks?: string[] }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path, url);
    const request = httpRequest({ hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: options.method ?? 'GET', headers: [['Host', target.host], ...(options.headers ?? [])] } as never, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end();
  });
}

describe('runtime: startNodeService on a real socket', () => {
  let service: NodeService;
  const logger = captureLogger();
  afterAll(async () => service?.stop());

  it('listens on a free port and serves the API over HTTP', async () => {
    const root = freshRoot();
    service = await startNodeService({ DASHBOARD_API_KEY: TEST_KEY, PROJECT_ROOT: root, PORT: '0', AEH_MAX_BODY_BYTES: '1024' }, root, logger);
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The app knows the port the system picked (the MCP URLs it gives agents, the SSRF guard's own address).
    expect(service.config.port).toBe(Number(new URL(service.url).port));
    expect(service.config.port).not.toBe(0);
    expect(logger.lines.some((line) => line.message === `listening on ${service.url}`)).toBe(true);
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toBeTruthy();
    const info = await fetch(`${service.url}/api/info`, { headers: { 'X-API-Key': TEST_KEY } });
    const body = await info.json();
    expect(body.runtime).toEqual({ name: 'node', version: process.versions.node });
    expect(body.storage.driver).toBe('fs');
  });

  it('accepts credential header names in any case on the wire', async () => {
    for (const name of ['x-aes-api-key', 'X-AES-API-KEY', 'X-Aes-Api-Key', 'x-api-key', 'X-API-KEY']) {
      const response = await raw(service.url, { path: '/api/info', headers: [[name, TEST_KEY]] });
      expect(response.status, name).toBe(200);
    }
    expect((await raw(service.url, { path: '/api/info', headers: [['authorization', `bearer ${TEST_KEY}`]] })).status).toBe(200);
    expect((await raw(service.url, { path: `/api/info?apiKey=${TEST_KEY}` })).status).toBe(200);
    // The query parameter is read by its exact name only (issue 13 item 9).
    expect((await raw(service.url, { path: `/api/info?APIKEY=${TEST_KEY}` })).status).toBe(401);
    const refused = await raw(service.url, { path: '/api/info', headers: [['X-Api-Key', 'wrong'.repeat(8)]] });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('Bearer');
    expect(refused.headers['content-type']).toBe('application/problem+json');
  });

  it('refuses a chunked body over the limit with 413 and stays up', async () => {
    const response = await raw(service.url, {
      method: 'POST',
      path: '/api/v1/mutate',
      headers: [['X-API-Key', TEST_KEY], ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']],
      chunks: ['{"type":"typo","raw_json":{"x":"', 'y'.repeat(600), 'y'.repeat(600), '"}}'],
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).code).toBe('payload_too_large');
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });

  it('answers broken JSON, wrong media types and unknown routes with problems', async () => {
    const post = (type: string, body: string) => fetch(`${service.url}/api/v1/mutate`, { method: 'POST', headers: { 'X-API-Key': TEST_KEY, 'Content-Type': type }, body });
    expect((await (await post('application/json', '{"type":')).json()).code).toBe('invalid_json');
    expect((await post('text/plain', '{}')).status).toBe(415);
    const missing = await fetch(`${service.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBeTruthy();
  });

  it('stops listening on stop()', async () => {
    const url = service.url;
    await service.stop();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    service = undefined as unknown as NodeService;
  });
});

/** The environment of a child service: ours, minus anything that would configure it. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AEH_|DASHBOARD_|OIDC_|PORT$|HOST$|PROJECT_ROOT$|NODE_OPTIONS$|VITEST)/.test(name)));
  return { ...env, ...extra };
}

/** Waits until nothing answers at `url` any more (the service, not only npm, has exited). */
async function waitUntilClosed(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await fetch(`${url}/healthz`).then(() => true, () => false);
    if (!open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} still answers after SIGTERM`);
}

interface Child { process: ChildProcess; url: string; output(): string; stop(): Promise<number | null> }

/** Spawns a service and waits for its "listening on" line. */
function spawnService(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Child> {
  return new Promise((resolve, reject) => {
    // Its own process group, signalled as a whole like Ctrl-C or a service manager does: `npm start` runs the
    // service under `sh -c`, which does not pass a SIGTERM sent to npm alone on to node.
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within 90 s:\n${output}`)), 90_000);
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          process: child,
          url: match[1],
          output: () => output,
          async stop() {
            process.kill(-child.pid!, 'SIGTERM');
            const code = await exited;
            await waitUntilClosed(match[1]);
            return code;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
  });
}

// The three starts as a child process run side by side (issue 36): each has its own project root and port, and
// much of their time is waiting on a process to start or to stop (SIGTERM, then until the port closes).
describe.concurrent('runtime: the service as a child process', () => {
  describe('runtime: npm start (compiled)', () => {
    it('builds if needed, generates the key on first start without printing it, serves, and stops on SIGTERM', async () => {
      const root = freshRoot();
      const child = await spawnService('npm', ['start', '--silent'], childEnv({ PROJECT_ROOT: root, PORT: '0' }));
      try {
        const key = /^DASHBOARD_API_KEY=([0-9a-f]{64})$/m.exec(readFileSync(join(root, '.env'), 'utf8'))?.[1];
        expect(key).toBeDefined();
        expect(statSync(join(root, '.env')).mode & 0o777).toBe(0o600);
        expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
        const info = await fetch(`${child.url}/api/info`, { headers: { 'X-AES-API-KEY': key! } });
        expect(info.status).toBe(200);
        expect((await info.json()).storage.driver).toBe('fs');
        expect(child.output()).toContain(join(root, '.env'));
        expect(child.output()).not.toContain(key!);
      } finally {
        await child.stop();
      }
      expect(child.output()).toContain('SIGTERM: shutting down');
    });
  });

  describe('runtime: node --import tsx runtime/node.ts (from source)', () => {
    it('serves with the key from the environment and refuses a short key at start', async () => {
      const root = freshRoot();
      const child = await spawnService(process.execPath, ['--import', 'tsx', 'runtime/node.ts'], childEnv({ PROJECT_ROOT: root, PORT: '0', DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory' }));
      try {
        const info = await fetch(`${child.url}/api/info`, { headers: { Authorization: `Bearer ${TEST_KEY}` } });
        expect((await info.json()).storage.driver).toBe('memory');
      } finally {
        expect(await child.stop()).toBe(0);
      }
      // The refusal is the same code compiled: a second start through tsx (loading and transforming every source
      // again, a few CPU-s) would prove nothing the start above and the compiled entry do not.
      const refused = spawnService(process.execPath, ['dist/runtime/node.js'], childEnv({ PROJECT_ROOT: root, PORT: '0', DASHBOARD_API_KEY: 'short' }));
      await expect(refused).rejects.toThrow(/exited with 1 before listening:[\s\S]*DASHBOARD_API_KEY is 5 characters/);
    });
  });

  describe('runtime: compiled service where code generation is forbidden (as on edge runtimes)', () => {
    it('validates every JSON body and query with the precompiled validators', async () => {
      const build = spawnProcessSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), '--if-stale']);
      expect(build.status, build.output).toBe(0);
      const child = await spawnService(process.execPath, ['--disallow-code-generation-from-strings', 'dist/runtime/node.js'], childEnv({ PROJECT_ROOT: freshRoot(), PORT: '0', DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory' }));
      try {
        const doc = await (await fetch(`${child.url}/api/openapi.json`)).json();
        const bodyRoutes: string[] = [];
        for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown }>>)) {
          for (const [method, operation] of Object.entries(item)) if (operation.requestBody) bodyRoutes.push(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, 'x')}`);
        }
        expect(bodyRoutes.length).toBeGreaterThan(3);
        for (const route of bodyRoutes) {
          const [method, path] = route.split(' ');
          // An array fails every object schema: the validator must run, and must not need `new Function`.
          const response = await fetch(`${child.url}${path}`, { method, headers: { 'X-API-Key': TEST_KEY, 'Content-Type': 'application/json' }, body: '[]' });
          expect(response.status, route).toBe(400);
          expect((await response.json()).code, route).toBe('validation_failed');
        }
        const query = await fetch(`${child.url}/api/scenarios?limit=abc`, { headers: { 'X-API-Key': TEST_KEY } });
        expect(query.status).toBe(400);
      } finally {
        await child.stop();
      }
      expect(child.output()).not.toContain('EvalError');
    });
  });
});

/** Runs a command to completion, keeping its output. */
function spawnProcessSync(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: repoRoot, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
