#!/usr/bin/env node
// Copies runs from a Node data directory (AEH_DATA_DIR, `fs` storage) into a Workers KV namespace, so that a
// worker with AEH_STORAGE=cloudflare-kv serves and verifies certificates produced on Node. Keys follow the store's
// layout (plugins/storage/cloudflare-kv.ts): the file's path below the data directory with `/` written as `:`
// (runs/<run_id>/certificate.json -> runs:<run_id>:certificate.json). Only `runs/` is copied: private signing
// keys (keys/) never leave Node; publish Node's public keys on the worker instead, with
// AEH_SIGNING_RETIRED_JWKS = the JSON of Node's /.well-known/jwks.json (docs/runtimes.md, "workerd").
//
//   node scripts/kv-seed.mjs --data-dir .aeh [--run <run_id>]... --url http://127.0.0.1:8788
//       PUTs each value on the KV protocol (the `kv-admin` socket of dist/workerd/config.capnp's `test` config)
//   node scripts/kv-seed.mjs --data-dir .aeh [--run <run_id>]... --bulk-json runs.json
//       writes the file for `npx wrangler kv bulk put --binding AEH_KV runs.json` (Cloudflare)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Workers KV refuses larger values. */
export const MAX_VALUE_BYTES = 25 * 1024 * 1024;

/**
 * The KV entries of a data directory's runs: `{ key, bytes }`, every file below `runs/<run_id>/` (all runs, or
 * those listed), skipping temporary files of interrupted writes (dotfiles).
 */
export function runEntries(dataDir, runIds = []) {
  const runsDir = join(dataDir, 'runs');
  const wanted = runIds.length ? new Set(runIds) : undefined;
  const entries = [];
  for (const entry of readdirSync(runsDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const segments = relative(dataDir, path).split(sep);
    if (wanted && !wanted.has(segments[1])) continue;
    if (segments.some((segment) => segment.includes(':'))) throw new Error(`${path}: a ':' in a path cannot be a KV key segment`);
    const bytes = readFileSync(path);
    if (bytes.length > MAX_VALUE_BYTES) throw new Error(`${path} is ${bytes.length} bytes; Workers KV values are at most ${MAX_VALUE_BYTES}`);
    entries.push({ key: segments.join(':'), bytes });
  }
  for (const runId of wanted ?? []) {
    if (!entries.some((entry) => entry.key.startsWith(`runs:${runId}:`))) throw new Error(`no run ${runId} in ${runsDir}`);
  }
  return entries.sort((a, b) => a.key.localeCompare(b.key));
}

/** PUTs the entries on a KV namespace's HTTP protocol (workerd's KV binding protocol: PUT /<key>). */
export async function putEntries(url, entries) {
  const base = url.replace(/\/+$/, '');
  for (const { key, bytes } of entries) {
    const response = await fetch(`${base}/${encodeURIComponent(key)}`, { method: 'PUT', body: bytes });
    if (!response.ok) throw new Error(`PUT ${key}: ${response.status} ${response.statusText}`);
  }
}

/** The entries in `wrangler kv bulk put` format (values base64-encoded, so bytes survive). */
export function bulkJson(entries) {
  return JSON.stringify(entries.map(({ key, bytes }) => ({ key, value: Buffer.from(bytes).toString('base64'), base64: true })));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, run: { type: 'string', multiple: true }, url: { type: 'string' }, 'bulk-json': { type: 'string' } } });
  try {
    if (!values['data-dir'] || !values.url === !values['bulk-json']) throw new Error('usage: kv-seed.mjs --data-dir <dir> [--run <run_id>]... (--url <kv url> | --bulk-json <file>)');
    const entries = runEntries(values['data-dir'], values.run ?? []);
    if (values.url) await putEntries(values.url, entries);
    else writeFileSync(values['bulk-json'], bulkJson(entries));
    console.log(`kv-seed: ${entries.length} value(s) from ${join(values['data-dir'], 'runs')} ${values.url ? `put to ${values.url}` : `written to ${values['bulk-json']}`}`);
  } catch (error) {
    console.error(`kv-seed: ${error.message}`);
    process.exit(1);
  }
}
