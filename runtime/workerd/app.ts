/**
 * Builds the service from a worker's bindings: string bindings (vars and secrets) are the environment that
 * `parseConfig` reads; other bindings (KV namespaces) are resources the storage plugin takes. workerd offers
 * no file system (path-based requests answer 501), no SHA3 (the bundle brings a WebAssembly one), no raw sockets
 * (outbound URLs go through the SSRF guard's literal-address checks over plain fetch), and the bundled
 * catalog is embedded in the bundle.
 */
import documents from 'aeh:bundled-catalog';
import sha3Module from 'aeh:sha3-wasm';
import { createApp, type AehApp } from '../../core/app.ts';
import { ConfigError, parseConfig } from '../../core/config.ts';
import { consoleLogger, type RuntimeCapabilities } from '../../core/capabilities.ts';
import { portablePlugins } from '../../plugins/bundled.ts';
import { cloudflareKvStorage } from '../../plugins/storage/cloudflare-kv.ts';
import { backgroundWork } from './background.ts';
import { wasmSha3 } from './sha3-wasm.ts';

/** A module worker's `env`: the bindings of its configuration (wrangler.toml or a workerd `.capnp`). */
export type WorkerBindings = Record<string, unknown>;

/** What workerd offers the core. */
export function workerdCapabilities(): RuntimeCapabilities {
  return {
    runtime: { name: 'workerd', version: typeof navigator === 'object' ? navigator.userAgent : 'unknown' },
    nativeSha3: wasmSha3(sha3Module),
    requestScopedIo: true,
    catalogDocuments: documents,
    logger: consoleLogger(),
    // Cloudflare's edge sets this header and overwrites any value a client sends.
    clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined,
  };
}

/** The service of one isolate: the app, and what an event waits for before it may end. */
export interface WorkerdService {
  app: AehApp;
  /** Resolves when no evaluation is queued or running in this isolate (see ./background.ts). */
  settled(): Promise<void>;
}

/** Builds the app for a worker's bindings; storage defaults to `memory` (nothing survives the isolate). */
export function buildWorkerdApp(bindings: WorkerBindings): WorkerdService {
  const vars = Object.fromEntries(Object.entries(bindings).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const config = parseConfig({ AEH_STORAGE: 'memory', ...vars }, '/');
  if (!config.apiKey) {
    // Node writes a generated key to .env; a worker has nowhere to write it.
    throw new ConfigError('DASHBOARD_API_KEY is not set: give the worker a secret (wrangler secret put DASHBOARD_API_KEY, 64 hex characters from openssl rand -hex 32)');
  }
  const background = backgroundWork();
  const app = createApp(config, [cloudflareKvStorage(bindings), background.plugin, ...portablePlugins()], workerdCapabilities());
  return { app, settled: background.settled };
}
