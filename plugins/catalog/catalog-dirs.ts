/**
 * The folders the catalog indexes, in order (earlier folders win duplicate ids): the bundled catalog, then each
 * of `AEH_CATALOG_DIRS` (relative ones below the project root), each named by its source. One function for the
 * catalog plugin and for a runtime that loads the same folders ahead of the app (runtime/node/catalog-prefetch.ts).
 */
import type { Config } from '../../core/config.ts';

export function catalogDirs(config: Pick<Config, 'catalogDirs' | 'projectRoot'>, bundledDir: string | undefined): Array<{ path: string; source: string }> {
  return [
    ...(bundledDir ? [{ path: bundledDir, source: 'bundled' }] : []),
    ...config.catalogDirs.map((dir) => ({ path: dir.startsWith('/') ? dir : `${config.projectRoot}/${dir}`, source: dir })),
  ];
}
