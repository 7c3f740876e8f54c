/**
 * JSON Schemas (2020-12) of the evaluation API's bodies and records, for validation and the OpenAPI document.
 */
import { attackRequestSchema, scenarioSchema } from '../../core/domain/schemas/scenario.ts';
import { AGENT_NAME } from '../../core/domain/agent-target.ts';
import { VERDICT_GATES, verdictPolicySchema } from '../../core/domain/verdict-policy.ts';

const SEED = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const STATUS = { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] };
const TIME = { type: ['string', 'null'], format: 'date-time' };
const TOKENS = { type: 'object', properties: { input: { type: 'integer' }, output: { type: 'integer' }, total: { type: 'integer' } } };
const USAGE = {
  type: 'object',
  description: 'agent calls made, answers taken from the response cache, reported tokens, latency, and with a price table (AEH_PRICES) the cost',
  properties: {
    calls: { type: 'integer', description: 'calls made to the agent: one per turn, probe and failed call, however many tool rounds it took' },
    requests: { type: 'integer', description: 'requests those calls sent to the agent: a call with tool rounds sends one per round' },
    cached_calls: { type: 'integer', description: 'answers taken from the response cache: not made, not spent' },
    reported_calls: { type: 'integer', description: 'calls made whose agent reported its token usage' },
    tokens: { ...TOKENS, description: 'tokens of the calls made, as reported' },
    cached_tokens: { ...TOKENS, description: 'tokens the cached answers used when first asked' },
    latency_ms: { type: 'object', properties: { sum: { type: 'number' }, mean: { type: ['number', 'null'] }, p50: { type: ['number', 'null'] }, p95: { type: ['number', 'null'] } } },
    cost: {
      type: 'object',
      description: 'with a price table: the cost of the calls whose model it names; the others are unpriced, never guessed',
      properties: { currency: { type: 'string' }, total: { type: 'number' }, priced_calls: { type: 'integer' }, unpriced_calls: { type: 'integer' }, unpriced_models: { type: 'array', items: { type: 'string' } }, saved_by_cache: { type: 'number' } },
    },
  },
};
const ERROR = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } };

/** `POST /api/evaluate` body: exactly one of `path`, `scenario`, `scenario_id` (checked by the handler, to name the fields). */
export const EVALUATE_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 4096, description: 'scenario JSON file, relative to PROJECT_ROOT (through the file jail)' },
    scenario: { type: 'object', description: 'a native or AES v1.4 scenario, inline' },
    scenario_id: { type: 'string', minLength: 1, maxLength: 256, description: 'a catalog scenario id' },
    seed: SEED,
    mutations: {
      type: 'array',
      maxItems: 16,
      items: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: {
          type: { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }] },
          count: { type: 'integer', minimum: 1, maximum: 100 },
          seed: SEED,
          options: { type: 'object' },
        },
      },
    },
    attacks: {
      type: 'array', maxItems: 50, items: attackRequestSchema,
      description: 'attacks on the scenario\'s injection vectors (GET /api/v1/attacks), instead of the scenario\'s own: each user task × attack × injection task runs as its own unit beside the run without attack',
    },
    verdict: { ...verdictPolicySchema, description: 'overrides fields of the scenario\'s verdict policy for this run (recorded and signed with the verdict)' },
    cache: { type: 'boolean', description: 'answer from the response cache where the same agent configuration was asked the same before (no call, marked cached in the trace and counted in the certificate), and keep new answers there' },
    // The override pins keys like the scenario does: a private key refused here never reaches storage.
    agent: {
      description: 'overrides the scenario\'s agent: the name of a registered agent (GET /api/v1/agents), or a spec {adapter, ...options}',
      oneOf: [
        { type: 'string', pattern: AGENT_NAME.source },
        { type: 'object', required: ['adapter'], properties: { adapter: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$' }, signature_key: scenarioSchema.properties.agent.properties.signature_key } },
      ],
    },
  },
};

export const ACCEPTED = {
  type: 'object',
  required: ['task_id', 'run_id', 'status', 'status_url'],
  properties: { task_id: { type: 'string' }, run_id: { type: 'string' }, status: { const: 'queued' }, status_url: { type: 'string' } },
};

export const TASK = {
  type: 'object',
  required: ['task_id', 'run_id', 'status', 'progress', 'created_at', 'started_at', 'finished_at'],
  properties: {
    task_id: { type: 'string' },
    run_id: { type: 'string' },
    status: STATUS,
    progress: { type: 'object', required: ['done', 'total'], properties: { done: { type: 'integer' }, total: { type: 'integer' } } },
    created_at: { type: 'string', format: 'date-time' },
    started_at: TIME,
    finished_at: TIME,
    error: ERROR,
  },
};

export const RUN = {
  type: 'object',
  required: ['run_id', 'task_id', 'scenario_id', 'status', 'started_at', 'finished_at', 'dimensions', 'index', 'compliance', 'failures', 'trace_file', 'certificate_url', 'verify_url'],
  properties: {
    run_id: { type: 'string' },
    task_id: { type: 'string' },
    scenario_id: { type: 'string' },
    scenario_hash: { type: 'string', description: 'SHA3-256 of the scenario\'s content as run, without its agent: runs of one scenario_id are of the same scenario only when it is the same' },
    scenario_origin: { enum: ['catalog', 'file', 'inline'], description: 'where the scenario came from: the catalog (scenario_id), a file under PROJECT_ROOT (path), or the request (scenario)' },
    status: STATUS,
    started_at: TIME,
    finished_at: TIME,
    dimensions: { type: ['object', 'null'], additionalProperties: { type: ['number', 'null'] } },
    index: { type: ['number', 'null'] },
    compliance: {
      type: ['object', 'null'],
      description: 'the verdict: the gates of the policy decide first, the index the rest (docs/evaluation.md, "How the verdict is decided")',
      properties: {
        status: { enum: ['pass', 'warning', 'fail', 'error'] }, score: { type: 'number', description: 'the index' }, policy_ref: { type: 'string' },
        reason: { type: 'string', description: 'with status error: why (the run could not complete, a must-pass check could not be measured, or nothing was measured)' },
        policy: { ...verdictPolicySchema, properties: { ...verdictPolicySchema.properties, min_pass_rate: { type: 'number', minimum: 0, maximum: 1 } }, description: 'the verdict policy applied' },
        policy_relaxed: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, applied: {}, reference: {} } }, description: 'present when the policy gates less than the defaults: each loosened field, the value applied and the default (signed in the certificate)' },
        decided_by: { type: 'object', properties: { gate: { enum: [...VERDICT_GATES] }, reason: { type: 'string' } }, description: 'the gate that decided the status, and why' },
      },
    },
    tiers: { type: 'object', description: 'which tier judged the results of each two-tier metric (refusal, harmful_content): counts of deterministic (the words) and model (the classifier)', additionalProperties: { type: 'object', properties: { deterministic: { type: 'integer' }, model: { type: 'integer' } } } },
    verdict: {
      type: 'object',
      description: 'the original tasks by verdict status (counts), the tasks that did not pass every attempt (status pass, fail, error when an unmeasured must-pass check leaves it open, or unmeasured when no attempt measured any check; at most 100, more_tasks says how many more; scores.json lists every task), and the failures that failed attempts',
      properties: { counts: { type: 'object' }, more_tasks: { type: 'integer' }, tasks: { type: 'array', items: { type: 'object', properties: { task_id: { type: 'string' }, attempts: { type: 'integer' }, passed: { type: 'integer' }, undecided: { type: 'integer' }, unmeasured: { type: 'integer', description: 'attempts that measured no check at all: neither passed nor failed, left out of pass@k and pass^k' }, status: { enum: ['pass', 'fail', 'error', 'unmeasured'] } } } }, gate_failures: { type: 'array' } },
    },
    agent: { type: 'object', required: ['adapter', 'config_hash'], description: 'the agent evaluated', properties: { name: { type: 'string', description: 'the registry name, when given by name' }, adapter: { type: 'string' }, config_hash: { type: 'string', description: 'SHA3-256 of the canonical JSON of the agent spec as run' } } },
    failures: { type: 'array', items: { type: 'object', required: ['code', 'metric', 'task_id', 'event_index', 'severity', 'message'], properties: { trial: { type: 'integer', description: 'the attempt (0-based), with trials' }, turn: { type: 'integer', description: 'the conversation turn (1-based) whose answer it was seen in' }, variant: { type: 'string' } } } },
    trace_file: { type: 'string' },
    certificate_url: { type: 'string' },
    verify_url: { type: 'string' },
    robustness: { type: ['object', 'null'] },
    trials: {
      type: 'object',
      description: 'with scenario trials (k attempts per task): pass@k, pass^k and pass^1…pass^k (τ-bench\'s estimator); an attempt passes when no gate of the verdict policy failed it',
      properties: { k: { type: 'integer' }, pass_at_k: { type: 'number' }, pass_hat_k: { type: 'number' }, pass_hat: { type: 'array', items: { type: ['number', 'null'] } } },
    },
    usage: USAGE,
    error: ERROR,
  },
};

export const RUN_LIST = {
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: { items: { type: 'array', items: { type: 'object' } }, next_cursor: { type: ['string', 'null'] } },
};
