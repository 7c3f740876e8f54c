/**
 * JSON Schema (2020-12) of an AES v1.4 document as this service accepts it: the structure of the reference
 * implementation's `aes.schema.json` (metadata, workflow nodes and edges), checked before normalisation so a
 * broken AES file is refused with paths into the AES document rather than into the scenario built from it.
 * Looser than the reference where normalisation does not need a field (`evaluation`, `compliance_level`).
 */

const NON_EMPTY = { type: 'string', minLength: 1 };

const outcomeSchema = {
  type: 'object',
  required: ['expected'],
  properties: {
    target: { type: 'string' },
    property: { type: 'string' },
    expected: {},
    mode: { type: 'string', enum: ['exact', 'regex', 'numerical_tolerance'] },
    tolerance: { type: 'number', minimum: 0 },
  },
} as const;

/** An AES v1.4 document: `{aes_version: 1.4, metadata, industry?, workflow: {nodes, edges}, evaluation?}`. */
export const aesSchema = {
  $id: 'https://aeh.dev/schemas/aes-1.4.json',
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'AES v1.4 scenario',
  type: 'object',
  required: ['aes_version', 'metadata', 'workflow'],
  properties: {
    aes_version: { enum: [1.4, '1.4', '1.4.0'] },
    enabled_shims: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 40 } },
    initial_state: { type: 'object', maxProperties: 20 },
    description: { type: 'string' },
    industry: { type: 'string' },
    use_case: { type: 'string' },
    metadata: {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: NON_EMPTY,
        name: NON_EMPTY,
        compliance_level: { type: 'string' },
        standards_registry: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' } },
        industry: { type: 'string' },
        use_case: { type: 'string' },
        description: { type: 'string' },
        agent_topology: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { writes: { type: 'array', items: { type: 'string' } }, reads: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    },
    workflow: {
      type: 'object',
      required: ['nodes'],
      properties: {
        nodes: {
          type: 'array',
          maxItems: 10000,
          items: {
            type: 'object',
            required: ['id', 'task_description'],
            properties: {
              id: NON_EMPTY,
              task_description: { type: 'string' },
              required_tools: { type: 'array', items: { type: 'string' } },
              expected_outcome: { type: 'array', items: outcomeSchema },
            },
          },
        },
        edges: {
          type: 'array',
          items: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' }, condition: { type: 'string' } } },
        },
      },
    },
    evaluation: { type: 'object' },
  },
} as const;
