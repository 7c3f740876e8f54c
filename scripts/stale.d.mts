// Types of scripts/stale.mjs, for test/stale.test.ts.
export const root: string;
export const stamp: string;
export function distIsStale(repo?: string): boolean;
