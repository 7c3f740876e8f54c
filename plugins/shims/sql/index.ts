/**
 * `sql`, registered lazily (issue 36): sql.js and the shim's six modules cost ~50 ms of every start, and most
 * starts never open a database. What a listing, a submission or a view reads is declared (declaration.ts); the
 * shim itself (shim.ts) loads when a world first starts it on this thread. On Node its calls run in the offload
 * pool, whose workers import shim.ts by `module`, so the request thread may never load SQLite at all.
 */
import { defineLazyShim } from '../../../core/domain/lazy-shim.ts';
import { sqlDeclaration } from './declaration.ts';
import type { SqlState } from './database.ts';

export type { SqlState };

export default defineLazyShim<SqlState>({
  ...sqlDeclaration,
  load: () => import('./shim.ts').then((module) => module.default),
});
