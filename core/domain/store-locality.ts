/**
 * Whether a store is used by this process alone: the embedded drivers (`memory`, `fs`), whose `setIfAbsent` is
 * atomic only within this process, so that what this process wrote (and holds in memory) is all there is. Shared
 * by the plugins that choose between an in-process mechanism and one that works across instances (Redis).
 */
import type { Store } from '../storage.ts';

const PROCESS_LOCAL = new Set(['memory', 'fs']);

export const storeIsProcessLocal = (store: Pick<Store, 'driver'>): boolean => PROCESS_LOCAL.has(store.driver);
