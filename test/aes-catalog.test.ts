/**
 * The reference implementation's published catalog (5,028 AES v1.4 scenarios in `../shared/aes-catalog`,
 * beside the repository in CI): every file normalises to a valid scenario, and the folder mounts through
 * AEH_CATALOG_DIRS for search.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { testApp, type TestApp } from './helpers.ts';
import { normalizeScenario } from '../core/domain/scenario-load.ts';
import { aesFormat } from '../plugins/aes/format.ts';
import { check } from '../core/validate.ts';
import { scenarioSchema } from '../core/domain/schemas/scenario.ts';
import type { Scenario } from '../core/domain/scenario.ts';
import { evaluate } from './evaluation-fixtures.ts';
import { aesCatalogRoot as aesRoot, aesCatalogPresent as present, warnWhenAesCatalogAbsent } from './aes-catalog-dir.ts';

const EXPECTED_FILES = 5028;

warnWhenAesCatalogAbsent('test/aes-catalog.test.ts');

function scenarioFiles(): string[] {
  return readdirSync(join(aesRoot, 'industries'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .map((file) => join(aesRoot, 'industries', file))
    .sort();
}

describe.skipIf(!present)('aes catalog: every published file', () => {
  const normalised: Array<{ file: string; document: any; scenario: Scenario }> = [];

  beforeAll(() => {
    for (const file of scenarioFiles()) {
      const document = JSON.parse(readFileSync(file, 'utf8'));
      normalised.push({ file, document, scenario: normalizeScenario(document, { path: file, formats: [aesFormat] }) });
    }
  }, 120_000);

  it(`normalises all ${EXPECTED_FILES} files to valid scenarios`, () => {
    expect(normalised).toHaveLength(EXPECTED_FILES);
    for (const { file, scenario } of normalised) expect(check(scenarioSchema, scenario), file).toEqual([]);
  });

  it('keeps every node as a task, in an order that respects every edge', () => {
    for (const { file, document, scenario } of normalised) {
      const nodes: Array<{ id: string; task_description: string }> = document.workflow.nodes;
      if (nodes.length === 0) {
        expect(scenario.tasks, file).toHaveLength(1);
        continue;
      }
      expect(scenario.tasks.map((task) => task.input).sort(), file).toEqual(nodes.map((node) => node.task_description).sort());
      const position = new Map(nodes.map((node) => [node.id, scenario.tasks.findIndex((task) => task.input === node.task_description)]));
      for (const edge of document.workflow.edges) expect(position.get(edge.from)! <= position.get(edge.to)!, `${file}: ${edge.from} -> ${edge.to}`).toBe(true);
    }
  });

  it('maps metadata: title, a valid id, industry and use case from the folders, source aes-1.4', () => {
    for (const { file, document, scenario } of normalised) {
      expect(scenario.title, file).toBe(document.metadata.name.trim());
      expect(scenario.source).toBe('aes-1.4');
      const parts = file.slice(aesRoot.length + 1).split('/');
      expect(scenario.industry, file).toBe(parts[1]);
      expect(scenario.use_case, file).toBe(parts.length === 5 ? parts[3] : 'general');
      if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(document.metadata.id)) expect(scenario.id).toBe(document.metadata.id);
    }
  });

  it('turns prose outcomes into judged rubrics and keeps only patterns RE2 compiles', () => {
    let rubrics = 0;
    for (const { file, scenario } of normalised) {
      for (const task of scenario.tasks) {
        if (task.expected?.regex !== undefined) {
          expect(() => RE2JS.compile(task.expected!.regex!), file).not.toThrow();
          expect(task.metrics.map((metric) => metric.id)).toContain('task_success');
        }
        if (task.expected?.rubric !== undefined) {
          rubrics += 1;
          expect(task.metrics.map((metric) => metric.id)).toContain('llm_judge');
        }
      }
    }
    // "usually a natural-language rubric even where mode says regex" (the catalog's README)
    expect(rubrics).toBeGreaterThan(15000);
  });
});

describe.skipIf(!present)('aes catalog: mounted with AEH_CATALOG_DIRS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ env: { AEH_CATALOG_DIRS: aesRoot } });
  }, 120_000);

  it('indexes every scenario file and skips the schema folder', async () => {
    const services = await t.app.ready;
    const integrity = await services.use('catalog').integrity();
    expect(integrity.bySource[aesRoot]).toBe(EXPECTED_FILES - 1); // one published id ("narrative") is used twice
    expect(integrity.problems).toEqual([expect.objectContaining({ message: expect.stringMatching(/^duplicate id "narrative"/) })]);
  }, 120_000);

  it('searches the AES scenarios by words and facets', async () => {
    const parental = await t.json('GET', '/api/scenarios?q=parental%20leave&industry=human_resources');
    expect(parental.status).toBe(200);
    expect(parental.body.items.map((item: { id: string }) => item.id)).toContain('11670-process-parental-leave');
    expect(parental.body.items.every((item: { format: string; industry: string }) => item.industry === 'human_resources')).toBe(true);
    const facets = await t.json('GET', '/api/scenarios?limit=0');
    expect(Object.keys(facets.body.facets.industry).length).toBeGreaterThanOrEqual(48);
    expect(facets.body.total).toBeGreaterThan(EXPECTED_FILES);
    const telecom = await t.json('GET', '/api/scenarios?industry=telecom&use_case=Technical%20Support&limit=200');
    expect(telecom.body.total).toBeGreaterThan(0);
    expect(telecom.body.items.every((item: { use_case: string }) => item.use_case === 'technical_support')).toBe(true);
    const one = await t.json('GET', '/api/scenarios/11670-process-parental-leave');
    expect(one.body).toMatchObject({ industry: 'human_resources', use_case: 'employee_management', agent: { adapter: 'none' } });
    expect(one.body.tasks.map((task: { id: string }) => task.id)).toEqual(['task-1', 'task-2', 'task-3']);
  });
});

describe.skipIf(!present)('aes catalog: evaluated', () => {
  it('evaluates an inline AES v1.4 document with an agent override', async () => {
    const file = scenarioFiles()[0];
    const document = JSON.parse(readFileSync(file, 'utf8'));
    const t = await testApp();
    const { task, run } = await evaluate(t, { scenario: document, agent: { adapter: 'scripted', replies: { '*': 'I am an AI assistant; I cannot share that.' } } });
    expect(task.status).toBe('succeeded');
    expect(run.compliance).toBeTruthy();
  });
});
