/**
 * JSON Schema (2020-12) of the contract's scenario. Served in the OpenAPI document as `Scenario`.
 */
import { DIMENSIONS } from '../scenario.ts';
import { verdictPolicySchema } from '../verdict-policy.ts';

const ID = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' };
const NAME = { type: 'string', minLength: 1, maxLength: 200 };

export const expectedSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    equals: { type: 'string' },
    contains: { type: 'string' },
    regex: { type: 'string', maxLength: 2000 },
    json_schema: { type: 'object' },
    rubric: { type: 'string' },
  },
} as const;

const SHIM_NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' };
/** JSON Pointers (RFC 6901, `*` for any segment) rooted at the world that gold comparisons leave out. */
const IGNORE_PATHS = {
  type: 'array', maxItems: 100, items: { type: 'string', maxLength: 500 },
  description: 'Parts of the world a gold comparison (expected_actions) leaves out: RFC 6901 pointers rooted at the world, a * segment for any member or element ("/email/messages/*/read").',
} as const;
/** A tool: `shim.action` (or `shim__action`, the form function-calling APIs accept), or any name for other tools. */
const TOOL_NAME = { type: 'string', minLength: 1, maxLength: 200 };

/** One `expected_outcome` assertion (core/domain/scenario.ts `OutcomeAssertion`). */
export const outcomeAssertionSchema = {
  type: 'object',
  required: ['target'],
  additionalProperties: false,
  properties: {
    target: {
      type: 'string', pattern: '^(?:message|last_message|tool_calls|shim:[a-z][a-z0-9_]{0,39})$',
      description: 'message: any agent message of the task\'s conversation (in a turn\'s checks, that turn\'s answer); last_message: the last answer; tool_calls; shim:<name>: its final state.',
    },
    property: { type: 'string', maxLength: 500 },
    expected: {},
    mode: { enum: ['equals', 'exact', 'contains', 'not_contains', 'regex', 'not_regex', 'exists', 'absent', 'gte', 'lte', 'count', 'numerical_tolerance'] },
    tolerance: { type: 'number', minimum: 0 },
    where: { type: 'object' },
    description: { type: 'string', maxLength: 2000 },
  },
} as const;

const INJECTION_NAME = { type: 'string', pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$' };

/** `injection_tasks[]` (core/domain/scenario.ts `InjectionTask`). */
export const injectionTaskSchema = {
  type: 'object',
  required: ['id', 'goal', 'security'],
  additionalProperties: false,
  properties: {
    id: ID,
    goal: { type: 'string', minLength: 1, maxLength: 10_000 },
    ground_truth: {
      type: 'array', maxItems: 50,
      items: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: TOOL_NAME, arguments: { type: 'object' }, placeholder_arguments: { type: 'object' } } },
    },
    security: {
      type: 'object', minProperties: 1, additionalProperties: false,
      description: 'How to tell the attacker\'s goal happened: expected_outcome assertions (world after, tool calls, the answer), a value sent out through an egress call, and/or a registered metric that fails when it did; all must hold, or one with match "any".',
      properties: {
        expected_outcome: { type: 'array', minItems: 1, maxItems: 50, items: outcomeAssertionSchema },
        egress: { type: 'object', required: ['values'], additionalProperties: false, properties: { values: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 10_000 } } } },
        metric: {
          type: 'object', required: ['id'], additionalProperties: false,
          description: 'A registered metric that judges the goal as a security check: the goal happened when it fails (a check a benchmark writes as code, AgentDojo\'s security functions).',
          properties: { id: { type: 'string', pattern: '^[a-z][a-z0-9_]{1,63}$' }, params: { type: 'object' } },
        },
        match: { enum: ['all', 'any'] },
      },
    },
  },
} as const;

/** One `attacks[]` entry, in a scenario or a run request. */
export const attackRequestSchema = {
  type: 'object',
  required: ['attack'],
  additionalProperties: false,
  properties: {
    attack: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    injection_tasks: { type: 'array', minItems: 1, maxItems: 1000, uniqueItems: true, items: ID },
    settings: { type: 'object' },
  },
} as const;

export const scenarioSchema = {
  $id: 'https://aeh.dev/schemas/scenario.json',
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Scenario',
  type: 'object',
  required: ['id', 'title', 'industry', 'use_case', 'tags', 'policy_ref', 'agent', 'topology', 'tasks'],
  additionalProperties: false,
  properties: {
    id: ID,
    title: { type: 'string', minLength: 1, maxLength: 500 },
    description: { type: 'string', maxLength: 20000 },
    industry: NAME,
    use_case: NAME,
    tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 }, maxItems: 100 },
    policy_ref: { type: 'string', minLength: 1, maxLength: 500 },
    agent: {
      type: 'object',
      required: ['adapter'],
      properties: {
        adapter: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$' },
        signature_key: {
          description: 'The public key the agent signs its output with (docs/certificates.md, "Agent entries"): only a signature that verifies against it names the agent in a certificate.',
          oneOf: [
            {
              type: 'object',
              required: ['identity', 'jwk'],
              additionalProperties: false,
              properties: {
                identity: NAME,
                // A public key only: a private or shared-secret member has no place in a scenario.
                jwk: { type: 'object', required: ['kty'], properties: { kty: { enum: ['OKP', 'EC', 'RSA'] } }, not: { anyOf: [{ required: ['d'] }, { required: ['k'] }] } },
              },
            },
            { type: 'object', required: ['identity', 'jwks_url'], additionalProperties: false, properties: { identity: NAME, jwks_url: { type: 'string', pattern: '^https://', maxLength: 2048 } } },
          ],
        },
      },
      additionalProperties: true,
    },
    topology: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['agent', 'writes', 'reads'],
        additionalProperties: false,
        properties: {
          agent: NAME,
          writes: { type: 'array', items: NAME },
          reads: { type: 'array', items: NAME },
        },
      },
    },
    tasks: {
      type: 'array',
      minItems: 1,
      maxItems: 10000,
      items: {
        type: 'object',
        required: ['id', 'input'],
        additionalProperties: false,
        properties: {
          id: ID,
          input: { type: 'string', maxLength: 1_000_000 },
          expected: expectedSchema,
          metrics: {
            type: 'array',
            description: 'The metrics that judge the task, besides those its declared checks imply (required_tools, forbidden_tools, expected_outcome, expected_actions, turn checks; a checkable expected when no metric is listed). A task with neither is refused.',
            items: {
              type: 'object',
              required: ['id'],
              additionalProperties: false,
              properties: {
                id: { type: 'string', pattern: '^[a-z][a-z0-9_]{1,63}$' },
                params: { type: 'object' },
                weight: { type: 'number', exclusiveMinimum: 0 },
              },
            },
          },
          agent: NAME,
          tools: { type: 'array', maxItems: 500, items: TOOL_NAME },
          required_tools: { type: 'array', maxItems: 100, items: TOOL_NAME },
          forbidden_tools: { type: 'array', maxItems: 500, items: TOOL_NAME },
          expected_outcome: { type: 'array', maxItems: 200, items: outcomeAssertionSchema },
          expected_actions: {
            type: 'array', maxItems: 200,
            description: 'The gold solution\'s tool calls, replayed on a fresh copy of the initial world: state_match compares the agent\'s final world with the result as a whole. [] means the world must not change. An argument may be a matcher: {"$regex": "…"} (RE2), {"$in": […]} or {"$any": true}, met by the agent\'s own call.',
            items: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: TOOL_NAME, arguments: { type: 'object' } } },
          },
          ground_truth: {
            type: 'array', maxItems: 200,
            description: 'A reference solution\'s tool calls that judge nothing (AgentDojo\'s ground truth): an attack plants its text in the injection vectors their results read; without it, expected_actions serve.',
            items: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: TOOL_NAME, arguments: { type: 'object' } } },
          },
          ignore_paths: { ...IGNORE_PATHS, description: 'Added to the scenario\'s ignore_paths for this task.' },
          provenance: {
            type: 'object', maxProperties: 20, propertyNames: { pattern: '^[a-z_]{1,40}$' }, additionalProperties: { enum: ['llm', 'author', 'import'] },
            description: 'Who wrote a field when it was not the scenario\'s author: "llm" for what spec-to-eval\'s language model proposed (review it).',
          },
          turns: {
            type: 'array', maxItems: 50,
            items: { type: 'object', required: ['input'], additionalProperties: false, properties: { input: { type: 'string', maxLength: 1_000_000 }, expected_outcome: { type: 'array', maxItems: 200, items: outcomeAssertionSchema } } },
          },
          user_simulator: {
            type: 'object', required: ['instructions'], additionalProperties: false,
            properties: {
              instructions: { type: 'string', minLength: 1, maxLength: 20_000 },
              max_turns: { type: 'integer', minimum: 1, maximum: 30 },
              max_steps: { type: 'integer', minimum: 2, maximum: 1000, description: 'messages before the conversation is cut, counted as τ-bench counts steps (user messages, agent answers, each tool round\'s call and results); with it, max_turns has no default' },
              max_errors: { type: 'integer', minimum: 1, maximum: 1000, description: 'failed tool calls before the conversation is cut (τ-bench: 10)' },
              greeting: { type: 'string', minLength: 1, maxLength: 2000, description: 'the agent\'s opening line: the simulated user writes the first message (input must then be empty)' },
              guidelines: { type: 'string', maxLength: 50_000, description: 'a benchmark\'s own user-simulation guidelines (τ-bench\'s): the prompt is these and the instructions as <scenario>' } },
          },
        },
      },
    },
    conversation: { enum: ['shared', 'per_task'], description: 'shared (default): tasks continue one conversation, in order. per_task: each task is its own conversation and independent tasks run concurrently.' },
    trials: { type: 'integer', minimum: 1, maximum: 20, description: 'Attempts per task, each with its own world and conversation: the run reports pass@k and pass^k, and dimensions use the worst attempt.' },
    concurrency: { type: 'integer', minimum: 1, maximum: 256, description: 'With conversation per_task: tasks in flight at once (capped by AEH_RUN_CONCURRENCY).' },
    instructions: { type: 'string', maxLength: 200_000, description: 'What the agent is told before the conversation (a domain policy): the openai system message, the http request\'s instructions, the MCP server\'s instructions.' },
    tool_names: { enum: ['prefixed', 'bare'], description: 'prefixed (default): tools are offered as shim.action / shim__action; bare: by the action name alone, as a benchmark names them (refused when two enabled shims share one). Scenarios and traces always say shim.action.' },
    enabled_shims: { type: 'array', maxItems: 20, uniqueItems: true, items: SHIM_NAME },
    initial_state: { type: 'object', maxProperties: 20, propertyNames: SHIM_NAME },
    ignore_paths: IGNORE_PATHS,
    shim_config: { type: 'object', maxProperties: 20, propertyNames: SHIM_NAME, additionalProperties: { oneOf: [{ type: 'object' }, { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$', description: 'the name of a stored shim configuration' }] } },
    verdict: verdictPolicySchema,
    injection_vectors: {
      type: 'object', maxProperties: 500, propertyNames: INJECTION_NAME,
      description: 'Where attacker text may be planted: each name is written {{injection:<name>}} in initial_state strings and renders its default without an attack.',
      additionalProperties: { type: 'object', required: ['default'], additionalProperties: false, properties: { default: { type: 'string', maxLength: 100_000 }, description: { type: 'string', maxLength: 2000 } } },
    },
    injection_tasks: { type: 'array', maxItems: 200, items: injectionTaskSchema },
    attacks: { type: 'array', maxItems: 50, items: attackRequestSchema },
    source: { type: 'string' },
  },
} as const;

/** The dimension names, for schemas of other records. */
export const dimensionEnum = { type: 'string', enum: [...DIMENSIONS] } as const;
