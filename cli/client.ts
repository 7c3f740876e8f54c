/**
 * How a command reaches the service: in-process with the embedded store (the default: nothing else needs to
 * run), or over HTTP against `--url` with `--key` (or AEH_API_KEY / DASHBOARD_API_KEY).
 */
import { silentLogger } from '../core/capabilities.ts';
import { installPrecompiledValidators } from '../runtime/node/precompiled.ts';

/** A parsed API answer: status, JSON body (or the text), raw text. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
}

/** The service as a command sees it, in-process or over HTTP. */
export interface ApiClient {
  /** Where requests go: `in-process` or the base URL. */
  readonly target: string;
  request<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  /** GETs a resource as exact bytes (traces and sidecars are hashed byte for byte). */
  download(path: string): Promise<{ status: number; bytes: Uint8Array }>;
  close(): Promise<void>;
}

/** Where to reach the service: `url` (+ `key`, else AEH_API_KEY / DASHBOARD_API_KEY) or in-process from `env` and `cwd`. */
export interface ClientOptions {
  url?: string;
  key?: string;
  env: Record<string, string | undefined>;
  cwd: string;
}

async function parse<T>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: body as T, text };
}

/** Opens a client; in-process mode builds the app from the same environment `npm start` would use. */
export async function openClient({ url, key, env, cwd }: ClientOptions): Promise<ApiClient> {
  if (url) {
    const base = url.replace(/\/+$/, '');
    const credential = key ?? env.AEH_API_KEY ?? env.DASHBOARD_API_KEY;
    return {
      target: base,
      async request(method, path, body) {
        const headers: Record<string, string> = {};
        if (credential) headers.authorization = `Bearer ${credential}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        return parse(await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
      },
      async download(path) {
        const response = await fetch(base + path, { headers: credential ? { authorization: `Bearer ${credential}` } : {} });
        return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
      },
      close: async () => undefined,
    };
  }
  // The build's validators first, then the plugins (their definitions resolve validators when imported):
  // otherwise every command compiled the shims' schemas again, a quarter of its start.
  await installPrecompiledValidators();
  const { buildNodeApp } = await import('../runtime/node/start.ts');
  const { app, config } = await buildNodeApp(env, cwd, silentLogger);
  return {
    target: 'in-process',
    async request(method, path, body) {
      const headers: Record<string, string> = { 'x-api-key': config.apiKey! };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return parse(await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    },
    async download(path) {
      const response = await app.request(path, { headers: { 'x-api-key': config.apiKey! } });
      return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
    },
    async close() {
      await app.close();
      // The worker pool's threads would keep the process alive after the command's answer (spec-to-eval hung).
      await (await app.ready.catch(() => undefined))?.capabilities.offload?.close();
    },
  };
}
