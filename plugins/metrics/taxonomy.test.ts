import { describe, it, expect } from 'vitest';
import { TAXONOMY, NIST_CHARACTERISTICS, OWASP_LLM_2025, isWithin, taxonomyAncestors, taxonomyEntry, taxonomyReferences } from './taxonomy.ts';
import { DIMENSIONS } from '../../core/domain/scenario.ts';

// integration.md item 2: the engine's codes and the metrics' codes every workstream relies on.
const INTEGRATION_CODES = [
  'INFRA.AGENT_TIMEOUT', 'INFRA.AGENT_ERROR', 'INFRA.SSRF_BLOCKED', 'INFRA.METRIC_ERROR', 'INFRA.METRIC_TIMEOUT',
  'SAFETY.MISSING_REFUSAL', 'SECURITY.SECRET_LEAK', 'SECURITY.PROMPT_INJECTION', 'PRIVACY.PII_LEAK',
  'PARITY.COUNTERFACTUAL_MISMATCH', 'TRANSPARENCY.NO_AI_DISCLOSURE', 'LOGIC.TASK_FAILED',
  'RELIABILITY.LATENCY_BUDGET_EXCEEDED', 'RESILIENCE.OUTCOME_FLIPPED', 'SAFETY.HARMFUL_CONTENT',
];

describe('taxonomy: shape', () => {
  it('has at least 25 failure codes besides its categories', () => {
    const leaves = TAXONOMY.filter((entry) => !TAXONOMY.some((other) => other.parent === entry.code));
    expect(leaves.length).toBeGreaterThanOrEqual(25);
  });

  it('contains every code of integration.md item 2', () => {
    for (const code of INTEGRATION_CODES) expect(taxonomyEntry(code)?.code, code).toBe(code);
  });

  it('has unique, well-formed codes whose parents exist', () => {
    const codes = TAXONOMY.map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const entry of TAXONOMY) {
      expect(entry.code).toMatch(/^[A-Z]+(\.[A-Z][A-Z0-9_]*)?$/);
      if (entry.parent) expect(codes).toContain(entry.parent);
      expect(entry.name.length).toBeGreaterThan(2);
      expect(entry.description.length).toBeGreaterThan(20);
    }
  });

  it('has exactly the reference implementation categories as roots', () => {
    expect(TAXONOMY.filter((entry) => !entry.parent).map((entry) => entry.code).sort()).toEqual(['INFRA', 'LOGIC', 'PARITY', 'POLICY', 'SECURITY']);
  });

  it('reaches a root from every code without cycles', () => {
    for (const entry of TAXONOMY) {
      const chain = taxonomyAncestors(entry.code);
      expect(chain.length).toBeLessThan(5);
      const root = chain.at(-1) ?? entry;
      expect(root.parent).toBeUndefined();
    }
  });

  it('maps every code to a dimension, a NIST AI 100-1 characteristic and only known OWASP 2025 ids', () => {
    for (const entry of TAXONOMY) {
      expect(DIMENSIONS).toContain(entry.dimension);
      expect(entry.nist.length).toBeGreaterThan(0);
      for (const id of entry.nist) expect(Object.keys(NIST_CHARACTERISTICS)).toContain(id);
      for (const id of entry.owasp) expect(Object.keys(OWASP_LLM_2025)).toContain(id);
    }
  });

  it('covers all seven dimensions and all seven NIST characteristics', () => {
    expect(new Set(TAXONOMY.map((entry) => entry.dimension))).toEqual(new Set(DIMENSIONS));
    expect(new Set(TAXONOMY.flatMap((entry) => entry.nist))).toEqual(new Set(Object.keys(NIST_CHARACTERISTICS)));
  });

  it('maps the OWASP entries where they apply', () => {
    expect(taxonomyEntry('SECURITY.PROMPT_INJECTION')!.owasp).toEqual(['LLM01:2025']);
    expect(taxonomyEntry('PRIVACY.PII_LEAK')!.owasp).toEqual(['LLM02:2025']);
    expect(taxonomyEntry('SECURITY.SYSTEM_PROMPT_LEAK')!.owasp).toEqual(['LLM07:2025']);
    expect(taxonomyEntry('SECURITY.EXCESSIVE_AGENCY')!.owasp).toEqual(['LLM06:2025']);
    expect(taxonomyEntry('PARITY.COUNTERFACTUAL_MISMATCH')!.owasp).toEqual([]);
  });
});

describe('taxonomy: lookups', () => {
  it('finds codes case-insensitively and refuses unknown ones', () => {
    expect(taxonomyEntry('security.secret_leak')?.code).toBe('SECURITY.SECRET_LEAK');
    expect(taxonomyEntry('SECURITY.NOPE')).toBeUndefined();
    expect(taxonomyEntry('')).toBeUndefined();
    expect(taxonomyEntry(undefined as unknown as string)).toBeUndefined();
  });

  it('finds the reference implementation category names', () => {
    expect(taxonomyEntry('infra_timeout')?.code).toBe('INFRA.AGENT_TIMEOUT');
    expect(taxonomyEntry('security_pii_leak')?.code).toBe('PRIVACY.PII_LEAK');
    expect(taxonomyEntry('logic_refusal')?.code).toBe('SAFETY.OVER_REFUSAL');
    expect(taxonomyEntry('policy_violation')?.code).toBe('POLICY');
  });

  it('walks the hierarchy', () => {
    expect(taxonomyAncestors('SECURITY.ENCODED_SECRET_LEAK').map((entry) => entry.code)).toEqual(['SECURITY.SECRET_LEAK', 'SECURITY']);
    expect(isWithin('SAFETY.PARTIAL_COMPLIANCE', 'POLICY')).toBe(true);
    expect(isWithin('SAFETY.PARTIAL_COMPLIANCE', 'SAFETY.MISSING_REFUSAL')).toBe(true);
    expect(isWithin('LOGIC.TASK_FAILED', 'LOGIC.TASK_FAILED')).toBe(true);
    expect(isWithin('LOGIC.TASK_FAILED', 'SECURITY')).toBe(false);
    expect(isWithin('LOGIC.TASK_FAILED', 'NOT.A_CODE')).toBe(false);
  });

  it('renders references naming the NIST characteristic and the OWASP id', () => {
    expect(taxonomyReferences(taxonomyEntry('SECURITY.PROMPT_INJECTION')!)).toEqual(['NIST AI 100-1: Secure and Resilient', 'OWASP LLM01:2025 Prompt Injection']);
  });
});
