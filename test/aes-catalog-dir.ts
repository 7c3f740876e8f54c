/**
 * Where the tests find the reference implementation's published AES catalog: `../shared/aes-catalog`, beside
 * the repository in the project's CI, absent from a fresh clone. The tests that read it import this module and
 * skip when it is absent, saying why; `.ci/run` runs the suite in a copy with nothing beside it, then runs these
 * files (the ones importing this module) again with the catalog placed beside that copy.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The AES catalog's root folder (it holds `industries/` and `schema/`). */
export const aesCatalogRoot = resolve(repoRoot, '..', 'shared', 'aes-catalog');

/** Whether the catalog is there. */
export const aesCatalogPresent = existsSync(join(aesCatalogRoot, 'industries'));

/** Says, once per test file that asks, why its AES catalog tests are skipped. */
export function warnWhenAesCatalogAbsent(file: string): void {
  if (!aesCatalogPresent) console.warn(`${file}: AES catalog tests skipped: ${aesCatalogRoot} is absent (it is not part of the repository; the project's CI places ../shared beside it)`);
}
