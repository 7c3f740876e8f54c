/**
 * Small immutable helpers the bundled shims share: deterministic ids from a counter kept in the state, record
 * lookup and replacement without mutating the previous state, and word matching for searches.
 */
import type { Json } from '../../../core/shim.ts';

/** A record in a shim's state: an object with a string `id`. */
export type Row = { [key: string]: Json } & { id: string };

/** The next id for `prefix` (`ord_1001`, …) and the counters after taking it. */
export function nextId(counters: Record<string, number> | undefined, prefix: string, start = 1): { id: string; counters: Record<string, number> } {
  const value = (counters?.[prefix] ?? start - 1) + 1;
  return { id: `${prefix}_${value}`, counters: { ...counters, [prefix]: value } };
}

/** The index of the record with `id`, or -1. */
export function indexOf(rows: readonly Row[], id: unknown): number {
  return typeof id === 'string' ? rows.findIndex((row) => row.id === id) : -1;
}

/** A copy of `rows` with the record at `index` replaced. */
export function replaced<T>(rows: readonly T[], index: number, row: T): T[] {
  const copy = rows.slice();
  copy[index] = row;
  return copy;
}

/** Lower-case words of a text (letters and digits), for searches. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}@._-]+/u).filter(Boolean);
}

/** True when every word of `query` occurs in one of `fields` (case-insensitive substring). */
export function matchesAll(query: string, fields: readonly unknown[]): boolean {
  const haystack = fields.filter((field) => typeof field === 'string' || typeof field === 'number').join(' ').toLowerCase();
  return wordsOf(query).every((word) => haystack.includes(word));
}

/** Money as integer minor units: shims never add floating-point amounts. */
export function toMinor(amount: number): number {
  return Math.round(amount * 100);
}

/** Minor units back to a decimal amount. */
export function fromMinor(minor: number): number {
  return minor / 100;
}

/** Timestamps compare as instants (ISO 8601 with offsets), `NaN` when unparsable. */
export function instant(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}
