/**
 * Failure codes: the taxonomy as a registry (`host.failureCodes`). Every code a metric or the engine reports is
 * declared by the plugin that emits it; the bundled taxonomy is the metrics plugin's declaration, and a plugin's
 * own codes hang beneath it (`RELIABILITY.OUTPUT_TOO_LONG` under `RELIABILITY`). `GET /api/v1/taxonomy` lists
 * them all, and the metric conformance suite fails a metric that emits a code nobody declared.
 */
import type { Dimension } from './domain/scenario.ts';

export interface FailureCode {
  /** `AREA` for a category, `AREA.NAME` for a failure: upper snake case, dot separated. */
  code: string;
  /** A short title (`Output too long`). */
  name: string;
  dimension: Dimension;
  description: string;
  /** The category it belongs to (`RELIABILITY`); absent only on the taxonomy's roots. */
  parent?: string;
  /** NIST AI 100-1 characteristics and OWASP LLM Top 10 (2025) ids it concerns, where the bundled taxonomy maps them. */
  nist?: string[];
  owasp?: string[];
  /** Other names the code answers to (the reference implementation's categories). */
  aliases?: string[];
}

export const FAILURE_CODE = /^[A-Z][A-Z0-9_]*(\.[A-Z][A-Z0-9_]*)*$/;

/** The taxonomy category a dimension's own failures go under, for codes `defineMetric` declares itself. */
export const DIMENSION_AREAS: Readonly<Record<Dimension, string>> = Object.freeze({
  reliability: 'RELIABILITY',
  resilience: 'RESILIENCE',
  safety: 'SAFETY',
  security: 'SECURITY',
  privacy: 'PRIVACY',
  fairness: 'PARITY',
  explainability: 'TRANSPARENCY',
});

/** Throws naming what is wrong when a declaration is not a usable failure code. */
export function checkFailureCode(entry: FailureCode): void {
  if (!entry || typeof entry !== 'object') throw new Error('a failure code must be an object { code, name, dimension, description, parent }');
  if (typeof entry.code !== 'string' || !FAILURE_CODE.test(entry.code)) throw new Error(`failure code "${String(entry.code).slice(0, 80)}" must be AREA.NAME in upper snake case`);
  if (!entry.name || !entry.description) throw new Error(`failure code ${entry.code} needs a name and a description`);
  if (entry.parent !== undefined && !FAILURE_CODE.test(entry.parent)) throw new Error(`failure code ${entry.code}: parent "${String(entry.parent).slice(0, 80)}" is not a code`);
}

/** Codes whose parent no loaded plugin declares, as messages; empty when the tree is whole. */
export function orphanCodes(codes: readonly FailureCode[]): string[] {
  const known = new Set(codes.map((entry) => entry.code));
  return codes.filter((entry) => entry.parent && !known.has(entry.parent)).map((entry) => `${entry.code} names the parent ${entry.parent}, which no loaded plugin declares`);
}
