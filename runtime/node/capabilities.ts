/**
 * What Node offers the core: the file system (for the jail), native SHA3-256 (OpenSSL), module loading for
 * users' plugins, and the bundled catalog's location.
 */
import { promises as fsp, createReadStream, realpathSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { resolve, isAbsolute } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { FileAccess, IncrementalHash, Logger, RuntimeCapabilities } from '../../core/capabilities.ts';
import { writeFileAtomic } from '../../plugins/storage/fs.ts';
import { createNodeNet } from './net.ts';
import { listFiles } from './list-files.ts';
import { bundledCatalogDir } from './paths.ts';

function realTempDirs(): string[] {
  const dirs = new Set<string>();
  for (const dir of [tmpdir(), '/tmp', '/var/tmp']) {
    try {
      dirs.add(realpathSync(dir));
    } catch {
      // a temp dir that does not exist allows nothing
    }
  }
  return [...dirs];
}

export function nodeFiles(): FileAccess {
  return {
    realpath: (path) => fsp.realpath(path),
    async stat(path) {
      const stat = await fsp.stat(path);
      return { isFile: stat.isFile(), size: stat.size };
    },
    async readFile(path) {
      return new Uint8Array(await fsp.readFile(path));
    },
    readFileSync: (path) => readFileSync(path),
    readStream: (path) => Readable.toWeb(createReadStream(path, { highWaterMark: 1 << 20 })) as unknown as ReadableStream<Uint8Array>,
    writeFile: (path, bytes, options) => writeFileAtomic(path, bytes, options?.mode),
    listFiles,
    tempDirs: realTempDirs(),
  };
}

export function nodeSha3(hash = createHash('sha3-256')): IncrementalHash {
  const incremental: IncrementalHash = {
    update(chunk) {
      hash.update(chunk);
      return incremental;
    },
    digest: () => new Uint8Array(hash.digest()),
    copy: () => nodeSha3(hash.copy()),
  };
  return incremental;
}

// Deno and Bun import TypeScript themselves; tsx's loader hooks are Node's (on Bun, tsImport fails with
// "Cannot find package 'tsx:'").
const nativeTypeScript = typeof process.versions.bun === 'string' || typeof process.versions.deno === 'string';


/** Node's capabilities for a service rooted at `projectRoot`. */
export function nodeCapabilities(projectRoot: string, logger?: Logger): RuntimeCapabilities {
  return {
    runtime: { name: 'node', version: process.versions.node },
    nativeSha3: nodeSha3,
    files: nodeFiles(),
    net: createNodeNet(),
    // @hono/node-server passes { incoming, outgoing } as the bindings of app.fetch (its getConnInfo reads the same).
    clientAddress: (_request, bindings) => (bindings as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress,
    logger,
    catalogDir: bundledCatalogDir,
    async importModule(specifier) {
      const local = specifier.startsWith('.') || isAbsolute(specifier);
      const target = local ? pathToFileURL(resolve(projectRoot, specifier)).href : specifier;
      if (!nativeTypeScript && /\.(c|m)?ts$/.test(specifier)) {
        const { tsImport } = await import('tsx/esm/api');
        return tsImport(target, import.meta.url);
      }
      return import(target);
    },
  };
}
