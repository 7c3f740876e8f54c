import { describe, it, expect } from 'vitest';
import { aesToScenario, locateInCatalog, sanitizeId, slugify, type AesDocument } from './aes-import.ts';
import { orderWorkflow } from './workflow-order.ts';
import { looksLikeProse, outcomesToExpected } from './aes-expected.ts';
import { normalizeScenario as normalize, type NormalizeOptions } from '../../core/domain/scenario-load.ts';
import { aesFormat } from './format.ts';

const normalizeScenario = (document: unknown, options: NormalizeOptions = {}) => normalize(document, { ...options, formats: [aesFormat] });
import { check } from '../../core/validate.ts';
import { scenarioSchema } from '../../core/domain/schemas/scenario.ts';
import { isProblem, type Problem } from '../../core/problems.ts';

function aes(overrides: Partial<AesDocument> & { nodes?: AesDocument['workflow']['nodes']; edges?: AesDocument['workflow']['edges'] } = {}): AesDocument {
  const { nodes, edges, ...rest } = overrides;
  return {
    aes_version: 1.4,
    metadata: { id: 'refund-flow', name: 'Refund flow', compliance_level: 'Standard' },
    description: 'A customer wants a refund.',
    industry: 'Ecommerce',
    workflow: {
      nodes: nodes ?? [
        { id: 'task-1', task_description: 'Find the order.', expected_outcome: [{ target: 'message', expected: 'Order is found, status is Returned.', mode: 'regex' }] },
        { id: 'task-2', task_description: 'Refund it.', expected_outcome: [{ target: 'message', expected: 'REF-\\d{6}', mode: 'regex' }] },
      ],
      edges: edges ?? [{ from: 'task-1', to: 'task-2' }],
    },
    ...rest,
  };
}

function thrown(fn: () => unknown): Problem {
  try {
    fn();
  } catch (error) {
    if (isProblem(error)) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

describe('aes: workflow order', () => {
  it('follows edges, not document order', () => {
    const { order, warnings } = orderWorkflow(['c', 'a', 'b'], [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }]);
    expect(order).toEqual([1, 2, 0]);
    expect(warnings).toEqual([]);
  });

  it('keeps document order between independent branches (stable)', () => {
    const { order } = orderWorkflow(['start', 'left', 'right', 'join'], [
      { from: 'start', to: 'right' },
      { from: 'start', to: 'left' },
      { from: 'left', to: 'join' },
      { from: 'right', to: 'join' },
    ]);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('places every node of a cycle once, in document order, and says so', () => {
    const { order, warnings } = orderWorkflow(['a', 'b', 'c', 'd'], [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'b' }, { from: 'c', to: 'd' }]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(warnings.join()).toMatch(/cycle through b, c, d/);
  });

  it('ignores dangling edges, self loops and duplicates', () => {
    const { order, warnings } = orderWorkflow(['a', 'b'], [{ from: 'b', to: 'a' }, { from: 'b', to: 'a' }, { from: 'a', to: 'a' }, { from: 'ghost', to: 'a' }, { from: 'b', to: 'nowhere' }]);
    expect(order).toEqual([1, 0]);
    expect(warnings.join()).toMatch(/2 edge\(s\) name nodes that do not exist/);
  });

  it('handles a workflow with no edges and a long chain', () => {
    expect(orderWorkflow(['x', 'y'], []).order).toEqual([0, 1]);
    const ids = Array.from({ length: 2000 }, (_, index) => `n${index}`);
    const edges = ids.slice(1).map((id, index) => ({ from: id, to: ids[index] })); // reverse chain
    expect(orderWorkflow(ids, edges).order[0]).toBe(1999);
  });
});

describe('aes: expected outcomes', () => {
  it('tells prose from patterns', () => {
    expect(looksLikeProse('HR specialist receives the request.')).toBe(true);
    expect(looksLikeProse("Order is found, status is 'Returned', total is $129.99.")).toBe(true);
    expect(looksLikeProse('Identity verified/authorized')).toBe(true);
    expect(looksLikeProse('Refund processed.')).toBe(true);
    expect(looksLikeProse('REF-\\d{6}')).toBe(false);
    expect(looksLikeProse('^(approved|denied)$')).toBe(false);
    expect(looksLikeProse('win')).toBe(false);
    expect(looksLikeProse('status: (open|closed)')).toBe(false);
  });

  // Issue 13: the alternation check was quadratic in a run of `|` after a `(` (an imported document's text).
  it('tells prose from patterns in linear time on hostile text', () => {
    expect(looksLikeProse(`(${'|'.repeat(1_000_000)}x`)).toBe(false);
    expect(looksLikeProse(`(${'a|'.repeat(500_000)})`)).toBe(false);
    expect(looksLikeProse(`${'(('.repeat(500_000)}`)).toBe(false);
  });

  it('turns regex-mode prose into a rubric, never a broken regex', () => {
    expect(outcomesToExpected([{ target: 'message', expected: 'Refund is successfully processed for $129.99.', mode: 'regex' }])).toEqual({ rubric: 'Refund is successfully processed for $129.99.' });
  });

  it('keeps real patterns as regex, and patterns RE2 cannot compile as rubric', () => {
    expect(outcomesToExpected([{ target: 'message', expected: 'REF-[0-9]{6}', mode: 'regex' }])).toEqual({ regex: 'REF-[0-9]{6}' });
    expect(outcomesToExpected([{ target: 'message', expected: '(?=x)y', mode: 'regex' }])).toEqual({ rubric: '(?=x)y' });
    expect(outcomesToExpected([{ target: 'message', expected: '([a-z]', mode: 'regex' }])).toEqual({ rubric: '([a-z]' });
  });

  it('maps exact values to equals or json_schema, numbers to a whole-number pattern', () => {
    expect(outcomesToExpected([{ target: 'message', expected: 'APPROVED', mode: 'exact' }])).toEqual({ equals: 'APPROVED' });
    expect(outcomesToExpected([{ target: 'message', expected: 'APPROVED' }])).toEqual({ equals: 'APPROVED' });
    expect(outcomesToExpected([{ target: 'message', expected: { status: 'ok' }, mode: 'exact' }])).toEqual({ json_schema: { const: { status: 'ok' } } });
    const { regex } = outcomesToExpected([{ target: 'message', expected: 129.99, mode: 'numerical_tolerance' }])!;
    expect(new RegExp(regex!).test('total 129.99 EUR')).toBe(true);
    expect(new RegExp(regex!).test('total 1129.99 EUR')).toBe(false);
  });

  it('checks simple JSON paths with a schema and leaves state assertions to the judge', () => {
    expect(outcomesToExpected([{ target: 'message', property: '$.decision.code', expected: 'A1' }])).toEqual({
      json_schema: { type: 'object', required: ['decision'], properties: { decision: { type: 'object', required: ['code'], properties: { code: { const: 'A1' } } } } },
    });
    expect(outcomesToExpected([{ target: 'shim:loan_db', property: 'status', expected: 'approved' }])!.rubric).toMatch(/shim:loan_db state at status/);
  });

  it('combines several outcomes: first pattern checked, the rest judged', () => {
    const expected = outcomesToExpected([
      { target: 'message', expected: 'REF-[0-9]+', mode: 'regex' },
      { target: 'message', expected: 'EUR', mode: 'regex' },
      { target: 'message', expected: 'The customer is told when the money arrives.', mode: 'regex' },
    ])!;
    expect(expected.regex).toBe('REF-[0-9]+');
    expect(expected.rubric).toContain('- The customer is told when the money arrives.');
    expect(expected.rubric).toContain('/EUR/');
  });

  it('returns undefined when there is nothing to check', () => {
    expect(outcomesToExpected([])).toBeUndefined();
    expect(outcomesToExpected([{ target: 'message', expected: '' }])).toBeUndefined();
  });
});

describe('aes: document → scenario', () => {
  it('maps metadata, tasks, metrics, and "no agent" (refused at submission until one is given)', () => {
    const { scenario, warnings } = aesToScenario(aes());
    expect(warnings).toEqual([]);
    expect(scenario).toMatchObject({ id: 'refund-flow', title: 'Refund flow', description: 'A customer wants a refund.', industry: 'ecommerce', use_case: 'general', policy_ref: 'NIST AI 100-1 (AES Standard)', source: 'aes-1.4' });
    expect(scenario.agent).toEqual({ adapter: 'none' });
    expect(scenario.tasks.map((task) => [task.id, task.metrics.map((metric) => metric.id)])).toEqual([
      ['task-1', ['llm_judge']],
      ['task-2', ['task_success']],
    ]);
    expect(check(scenarioSchema, scenario)).toEqual([]);
  });

  it('takes industry and use case from the catalog folders', () => {
    expect(locateInCatalog('/x/industries/human_resources/scenarios/employee_management/1_a.json')).toEqual({ industry: 'human_resources', use_case: 'employee_management' });
    expect(locateInCatalog('/x/industries/finance/scenarios/loan.json')).toEqual({ industry: 'finance', use_case: undefined });
    expect(locateInCatalog('/tmp/loan.json')).toEqual({});
    const { scenario } = aesToScenario(aes(), { path: '/c/industries/healthcare/scenarios/claims/x.json' });
    expect([scenario.industry, scenario.use_case]).toEqual(['healthcare', 'claims']);
  });

  it('sanitises ids and keeps task ids unique', () => {
    expect(sanitizeId('13557-disseminate-information-about-a-missing-child-(amber-a', 'x')).toBe('13557-disseminate-information-about-a-missing-child-amber-a');
    expect(sanitizeId('12037-host-a-q&a-on-social-media', 'x')).toBe('12037-host-a-q-a-on-social-media');
    expect(sanitizeId('---', 'fallback')).toBe('fallback');
    expect(sanitizeId('é'.repeat(10), 'fallback')).toBe('fallback');
    expect(sanitizeId('a'.repeat(300), 'x')).toHaveLength(128);
    const { scenario, warnings } = aesToScenario(aes({
      metadata: { id: 'q&a scenario!', name: 'Q&A' },
      nodes: [{ id: 'step 1', task_description: 'a' }, { id: 'step 1', task_description: 'b' }, { id: 'step?1', task_description: 'c' }],
      edges: [],
    }));
    expect(scenario.id).toBe('q-a-scenario');
    expect(scenario.tasks.map((task) => task.id)).toEqual(['step-1', 'step-1-2', 'step-1-3']);
    expect(warnings.join()).toContain('became "q-a-scenario"');
    expect(check(scenarioSchema, scenario)).toEqual([]);
  });

  it('derives tags, policy_ref and topology from metadata and policies', () => {
    const { scenario } = aesToScenario(aes({
      metadata: { id: 'x', name: 'X', compliance_level: 'Gold', standards_registry: ['GDPR', 'HIPAA'], tags: ['claims'], agent_topology: { Intake: { writes: ['queue'] }, Reviewer: { reads: ['queue'] } } },
      policies: { requires_hitl: true, safety_threshold: 0.9 },
    }));
    expect(scenario.policy_ref).toBe('GDPR, HIPAA (AES Gold)');
    expect(scenario.tags).toEqual(['claims', 'GDPR', 'HIPAA', 'requires_hitl']);
    expect(scenario.topology).toEqual([{ agent: 'Intake', writes: ['queue'], reads: [] }, { agent: 'Reviewer', writes: [], reads: ['queue'] }]);
  });

  it('turns an empty workflow into one judged task from the description', () => {
    const { scenario, warnings } = aesToScenario(aes({ nodes: [], edges: [] }));
    expect(scenario.tasks).toHaveLength(1);
    expect(scenario.tasks[0]).toMatchObject({ input: 'A customer wants a refund.', metrics: [{ id: 'llm_judge' }] });
    expect(warnings.join()).toMatch(/no nodes/);
    expect(check(scenarioSchema, scenario)).toEqual([]);
  });

  it('slugifies industries the way the AES catalog names its folders', () => {
    expect(slugify('Marketing and Advertising')).toBe('marketing_and_advertising');
    expect(slugify('Meta-Industry')).toBe('meta_industry');
    expect(slugify(undefined)).toBe('');
  });
});

describe('aes: normalizeScenario', () => {
  it('accepts an AES document and returns a valid scenario', () => {
    const scenario = normalizeScenario(aes(), { path: '/x/industries/retail/scenarios/returns/r.json' });
    expect(scenario.source).toBe('aes-1.4');
    expect(scenario.industry).toBe('retail');
  });

  it('refuses a broken AES document with paths into the AES document', () => {
    const problem = thrown(() => normalizeScenario({ aes_version: 1.4, metadata: { id: 'x' }, workflow: { nodes: [{ id: 'a' }] } }));
    expect(problem.code).toBe('validation_failed');
    const paths = problem.errors!.map((error) => error.path);
    expect(paths).toContain('/metadata/name');
    expect(paths).toContain('/workflow/nodes/0/task_description');
  });

  it('refuses other AES versions', () => {
    const problem = thrown(() => normalizeScenario({ ...aes(), aes_version: 2.0 }));
    expect(problem.errors!.map((error) => error.path)).toContain('/aes_version');
  });

  it('still validates native scenarios with every failing path', () => {
    const problem = thrown(() => normalizeScenario({ id: 'x', title: 'X', tasks: [] }));
    const paths = problem.errors!.map((error) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['/industry', '/agent', '/tasks']));
  });
});

describe('scenario-load: rules beyond the schema', () => {
  const base = {
    id: 'rules',
    title: 'Rules',
    industry: 'finance',
    use_case: 'lending',
    tags: [],
    policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies: {} },
    topology: [],
  };

  it('refuses duplicate task ids, naming the duplicate and the first', () => {
    const problem = thrown(() => normalizeScenario({ ...base, tasks: [0, 1, 2].map((at) => ({ id: at === 2 ? 'a' : `t${at}`, input: 'x', metrics: [{ id: 'task_success' }] })).concat([{ id: 't1', input: 'y', metrics: [{ id: 'task_success' }] }]) }));
    expect(problem.errors).toEqual([{ path: '/tasks/3/id', message: 'duplicates the id of /tasks/1' }]);
  });

  it('refuses regexes RE2 cannot compile', () => {
    const problem = thrown(() => normalizeScenario({ ...base, tasks: [{ id: 't', input: 'x', expected: { regex: '(?<=a)b' }, metrics: [{ id: 'task_success' }] }] }));
    expect(problem.errors![0].path).toBe('/tasks/0/expected/regex');
    expect(problem.errors![0].message).toMatch(/RE2/);
    expect(normalizeScenario({ ...base, tasks: [{ id: 't', input: 'x', expected: { regex: '^REF-[0-9]{6}$' }, metrics: [{ id: 'task_success' }] }] }).tasks[0].expected!.regex).toBe('^REF-[0-9]{6}$');
  });
});
