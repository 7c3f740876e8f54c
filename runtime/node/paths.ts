/** Where the package's own files are, from the sources (runtime/node) or the build (dist/runtime/node). */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));

/** The bundled scenario catalog. */
export const bundledCatalogDir = join(repoRoot, 'catalog');
