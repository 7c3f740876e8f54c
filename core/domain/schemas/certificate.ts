/**
 * JSON Schema (2020-12) of the Verification Certificate, version 3.0.0, field for field as the tables of
 * service-spec.md ("Verification Certificate (version 3.0.0)"). Served in the OpenAPI document as `Certificate`.
 *
 * Where a table rule is prose ("Basename of the trace file", "sidecar filename") it is written as a pattern
 * that admits a single path segment, so a certificate can never point a verifier outside its run folder.
 * Unknown members are refused: every field of a certificate is covered by its signatures, and a field the
 * spec does not define would be an unsigned claim.
 */
import { VERDICT_GATES, verdictPolicySchema } from '../verdict-policy.ts';

const HEX_DIGEST = { type: 'string', pattern: '^[a-fA-F0-9]{64}$' } as const;
/** One path segment: no slash, backslash or NUL, and not `.` or `..`. */
const BASENAME = { type: 'string', minLength: 1, maxLength: 255, pattern: '^(?!\\.\\.?$)[^/\\\\\\u0000]+$' } as const;

/** The `role` values of `provenance_chain` entries. */
/** A count out of a total and its rate (core/domain/attack-summary.ts). */
const RATE = {
  type: 'object', required: ['count', 'total', 'rate'], additionalProperties: false,
  properties: { count: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 0 }, rate: { type: ['number', 'null'], minimum: 0, maximum: 1 } },
} as const;

export const PROVENANCE_ROLES = ['Agent', 'Evaluator', 'Auditor'] as const;

/** The `compliance.status` values. */
export const COMPLIANCE_STATUSES = ['pass', 'fail', 'warning', 'error'] as const;

export const provenanceEntrySchema = {
  type: 'object',
  required: ['identity', 'timestamp', 'signature', 'role'],
  additionalProperties: false,
  properties: {
    identity: { type: 'string', description: 'Identity of the signer.' },
    timestamp: { type: 'string', format: 'date-time', description: 'ISO 8601.' },
    signature: { type: 'string', description: 'Compact JWS over the run (docs/certificates.md, "Signed bytes").' },
    role: { type: 'string', enum: [...PROVENANCE_ROLES] },
  },
} as const;

export const certificateSchema = {
  $id: 'https://aeh.dev/schemas/certificate-3.0.0.json',
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Verification Certificate 3.0.0',
  type: 'object',
  required: ['vc_version', 'run_id', 'trace_hash', 'hash_algorithm', 'trace_file', 'compliance', 'evidence_ledger', 'provenance_chain'],
  additionalProperties: false,
  properties: {
    vc_version: { type: 'string', const: '3.0.0' },
    harness_version: { type: 'string', description: 'Version of the engine that produced the run.' },
    run_id: { type: 'string', description: 'Unique identifier of the evaluation run.' },
    trace_hash: { ...HEX_DIGEST, description: 'SHA3-256 hash of the trace .jsonl file.' },
    hash_algorithm: { type: 'string', enum: ['sha3_256'], description: 'Applies to trace_hash and to evidence_ledger.' },
    trace_file: { ...BASENAME, description: 'Basename of the trace file.' },
    compliance: {
      type: 'object',
      required: ['status', 'score', 'policy_ref'],
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: [...COMPLIANCE_STATUSES] },
        score: { type: 'number', minimum: 0, maximum: 1 },
        policy_ref: { type: 'string', description: 'Reference to the NIST/ISO policy audited.' },
        // Ours, beyond the spec's three (the reference vc.schema.json admits further members): why a run has no verdict.
        reason: { type: 'string', maxLength: 1000, description: 'With status error only: why (the run could not complete, a must-pass check could not be measured, or nothing was measured).' },
        // Ours too: the verdict policy applied and the gate that decided, so the status can be audited.
        // Certificates signed before min_pass_rate had to be above 0 still validate.
        policy: {
          ...verdictPolicySchema, required: ['fail_on_severity', 'must_pass', 'min_pass_rate', 'pass_threshold'], description: 'The verdict policy applied (docs/evaluation.md, "How the verdict is decided").',
          properties: { ...verdictPolicySchema.properties, min_pass_rate: { type: 'number', minimum: 0, maximum: 1 } },
        },
        policy_relaxed: {
          type: 'array', minItems: 1, maxItems: 4,
          description: 'Present when the policy applied gates less than the defaults: each loosened field, its value and the default\'s (docs/evaluation.md, "A policy a gate can trust").',
          items: {
            type: 'object', required: ['field', 'applied', 'reference'], additionalProperties: false,
            properties: { field: { enum: ['fail_on_severity', 'must_pass', 'min_pass_rate', 'pass_threshold'] }, applied: {}, reference: {} },
          },
        },
        decided_by: {
          type: 'object', required: ['gate', 'reason'], additionalProperties: false,
          description: 'The gate that decided the status, and why.',
          properties: { gate: { enum: [...VERDICT_GATES] }, reason: { type: 'string', maxLength: 1000 } },
        },
      },
    },
    evidence_ledger: {
      type: 'object',
      description: 'Map from sidecar filename to its SHA3-256 hash.',
      propertyNames: BASENAME,
      additionalProperties: HEX_DIGEST,
    },
    provenance_chain: { type: 'array', items: provenanceEntrySchema },
    governance_ttl: { type: 'integer', description: 'Number of days before the certificate expires.' },
    // Ours, beyond the spec's table: present only when answers came from the response cache, so a gate can refuse them.
    cache: {
      type: 'object',
      required: ['cached_calls', 'agent_calls'],
      additionalProperties: false,
      description: 'Present only when the run used answers from the response cache instead of asking the agent.',
      properties: {
        cached_calls: { type: 'integer', minimum: 1, description: 'Answers taken from the response cache.' },
        agent_calls: { type: 'integer', minimum: 1, description: 'Every agent answer the run used (calls made plus cached answers).' },
      },
    },
    // Ours too (issue 32 item 7): which scenario ran, by content, and where it came from. Absent in older certificates.
    scenario: {
      type: 'object',
      required: ['id', 'content_hash', 'origin'],
      additionalProperties: false,
      description: 'The scenario run: its id, the SHA3-256 of its content as run without its agent, and where it came from.',
      properties: {
        id: { type: 'string', maxLength: 200 },
        content_hash: { ...HEX_DIGEST, description: 'SHA3-256 of the RFC 8785 form of the scenario as run (the plan\'s scenario), without its agent.' },
        origin: { enum: ['catalog', 'file', 'inline'], description: 'catalog (by scenario_id), file (by path under PROJECT_ROOT) or inline (sent in the request).' },
      },
    },
    // Ours too (issue 35): a run with attacks signs its numbers. Absent in certificates of runs without attacks.
    attacks: {
      type: 'object',
      required: ['utility', 'utility_under_attack', 'targeted_asr', 'by_attack'],
      additionalProperties: false,
      description: 'Utility (no attack), utility under attack and the targeted attack success rate, pooled and per attack, as counts and rates.',
      properties: {
        utility: RATE, utility_under_attack: RATE, targeted_asr: RATE,
        by_attack: {
          type: 'array', maxItems: 200,
          items: { type: 'object', required: ['attack', 'dos', 'cases', 'utility_under_attack', 'asr'], additionalProperties: false, properties: { attack: { type: 'string', maxLength: 64 }, dos: { type: 'boolean' }, cases: { type: 'integer', minimum: 0 }, utility_under_attack: RATE, asr: RATE } },
        },
      },
    },
  },
} as const;
