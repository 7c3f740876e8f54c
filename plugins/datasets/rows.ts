/**
 * From dataset rows to scenario tasks. The columns (CSV header names, JSONL keys):
 *
 * - `input` (required): what the agent is asked.
 * - `expected`: the answer must contain it; or `expected_contains`, `expected_equals`, `expected_regex`
 *   (JSONL may also give `expected` as an object `{contains|equals|regex}`).
 * - `metrics`: `id` or `id:param=value&param=value`, several separated by `;` (JSONL: a list of those strings,
 *   or of `{id, params}` objects). A value is read as a number, `true`/`false`, or a list when it holds `|`.
 *   Without metrics, a row with an expectation is scored by `task_success`.
 * - `tags`: separated by `;` or `,` (JSONL: a list); the scenario's tags are the union of every row's.
 * - `id`: the task id (default `row-<n>`).
 * - `required_tools`, `forbidden_tools`, `tools`: tool names (`shim.action`) separated by `;` or `,` (JSONL: a list).
 * - `expected_outcome`, `expected_actions`, `turns`: what a scenario task holds under those names (JSONL: the value;
 *   CSV: the value as JSON in the cell). `turns` may also be a list of plain inputs.
 *
 * A column the import does not read is an error naming it: nothing a row holds is dropped in silence.
 *
 * Cell text is kept verbatim: nothing is evaluated, so a spreadsheet formula (`=HYPERLINK(…)`) stays text, and
 * is reported as a warning because a spreadsheet that opens an export of it would run it.
 */
import type { FieldError } from '../../core/problems.ts';
import type { Expected, MetricRef, ScenarioTask } from '../../core/domain/scenario.ts';
import { check, type JsonSchema } from '../../core/validate.ts';
import { scenarioSchema } from '../../core/domain/schemas/scenario.ts';
import { MAX_CELL, type DatasetRow } from './parse.ts';
import { impliedMetricIds } from '../../core/domain/implied-metrics.ts';
import { JsonDepthError, parseWithinDepth } from '../../core/guards/json-depth.ts';

const LIST_COLUMNS = ['required_tools', 'forbidden_tools', 'tools'] as const;
const JSON_COLUMNS = ['expected_outcome', 'expected_actions', 'turns'] as const;
const KNOWN = new Set(['id', 'input', 'expected', 'expected_contains', 'expected_equals', 'expected_regex', 'metrics', 'tags', ...LIST_COLUMNS, ...JSON_COLUMNS]);
/** The scenario schema's task fields, to check a row's structured columns where they are (their row and column). */
const TASK_FIELDS = scenarioSchema.properties.tasks.items.properties as unknown as Record<string, JsonSchema>;
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Cells a spreadsheet would run as a formula (OWASP "CSV injection"). */
const FORMULA = /^[=+\-@\t\r]/;

/** What the rows became: tasks, the union of their tags, errors and warnings by row. */
export interface MappedRows {
  tasks: ScenarioTask[];
  /** The row each task came from (`rowOf[i]` for `tasks[i]`), to name a row in problems found later. */
  rowOf: number[];
  tags: string[];
  errors: FieldError[];
  warnings: FieldError[];
}

function scalar(raw: string): unknown {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw.includes('|') ? raw.split('|').map((item) => item.trim()) : raw;
}

/** `id` or `id:key=value&key=value` as a metric reference, or why not. */
export function parseMetricForm(form: string): MetricRef | string {
  const [id, params] = [form.slice(0, form.indexOf(':') < 0 ? form.length : form.indexOf(':')).trim(), form.indexOf(':') < 0 ? '' : form.slice(form.indexOf(':') + 1)];
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(id)) return `"${id.slice(0, 40)}" is not a metric id`;
  if (!params.trim()) return { id };
  const entries: Array<[string, unknown]> = [];
  for (const pair of params.split('&')) {
    const at = pair.indexOf('=');
    if (at <= 0) return `"${pair.slice(0, 40)}" is not param=value`;
    entries.push([pair.slice(0, at).trim(), scalar(pair.slice(at + 1).trim())]);
  }
  return { id, params: Object.fromEntries(entries) };
}

function metricsOf(value: unknown, path: string, errors: FieldError[]): MetricRef[] {
  if (value === undefined || value === null || value === '') return [];
  const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(';').map((item) => item.trim()).filter(Boolean) : [value];
  const refs: MetricRef[] = [];
  items.forEach((item, index) => {
    if (typeof item === 'string') {
      const parsed = parseMetricForm(item);
      if (typeof parsed === 'string') errors.push({ path: `${path}/${index}`, message: parsed });
      else refs.push(parsed);
    } else if (item && typeof item === 'object' && typeof (item as MetricRef).id === 'string') {
      refs.push({ id: (item as MetricRef).id, ...((item as MetricRef).params ? { params: (item as MetricRef).params } : {}) });
    } else errors.push({ path: `${path}/${index}`, message: 'must be "id:param=value" or {"id", "params"}' });
  });
  return refs;
}

function expectedOf(fields: Record<string, unknown>, path: string, errors: FieldError[]): Expected | undefined {
  const expected: Expected = {};
  const given = fields.expected;
  if (given && typeof given === 'object' && !Array.isArray(given)) {
    for (const mode of ['contains', 'equals', 'regex'] as const) {
      const value = (given as Record<string, unknown>)[mode];
      if (typeof value === 'string') expected[mode] = value;
    }
  } else if (typeof given === 'string' && given !== '') expected.contains = given;
  else if (given !== undefined && given !== null && given !== '') errors.push({ path: `${path}/expected`, message: 'must be text or {contains|equals|regex}' });
  for (const mode of ['contains', 'equals', 'regex'] as const) {
    const value = fields[`expected_${mode}`];
    if (typeof value === 'string' && value !== '') expected[mode] = value;
  }
  if (expected.regex !== undefined) {
    try {
      new RegExp(expected.regex);
    } catch {
      errors.push({ path: `${path}/expected`, message: 'the regex does not compile' });
    }
  }
  return Object.keys(expected).length ? expected : undefined;
}

/**
 * The structured columns of a row (tool lists, outcome assertions, gold actions, turns) as task fields, each
 * checked against the scenario schema under `<path>/<column>`.
 */
function structuredOf(fields: Record<string, unknown>, path: string, errors: FieldError[]): Partial<ScenarioTask> {
  const task: Record<string, unknown> = {};
  for (const column of LIST_COLUMNS) {
    const value = fields[column];
    if (value === undefined || value === null || value === '') continue;
    task[column] = typeof value === 'string' ? value.split(/[;,]/).map((item) => item.trim()).filter(Boolean) : value;
  }
  for (const column of JSON_COLUMNS) {
    let value = fields[column];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value === 'string') {
      try {
        value = parseWithinDepth(value);
      } catch (error) {
        errors.push(error instanceof JsonDepthError
          ? { path: `${path}/${column}${error.path}`, message: `nests deeper than ${error.limit} levels here` }
          : { path: `${path}/${column}`, message: 'must be JSON (in a CSV cell: the JSON text of the value)' });
        continue;
      }
    }
    // Turns may be plain inputs.
    if (column === 'turns' && Array.isArray(value)) value = value.map((turn) => (typeof turn === 'string' ? { input: turn } : turn));
    task[column] = value;
  }
  for (const [column, value] of Object.entries(task)) errors.push(...check(TASK_FIELDS[column]!, value, `${path}/${column}`));
  return task as Partial<ScenarioTask>;
}

function tagsOf(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[;,]/) : [];
  return items.map((item) => String(item).trim()).filter(Boolean);
}

/** What the import needs of the metrics loaded: each one's params schema (a `Registry<Metric>` is one). */
export interface MetricParams {
  get(id: string): { params?: JsonSchema } | undefined;
}

/** Maps rows to tasks; metric ids and params are checked against `metrics`. */
export function mapRows(rows: DatasetRow[], metrics: MetricParams): MappedRows {
  const tasks: ScenarioTask[] = [];
  const rowOf: number[] = [];
  const tags = new Set<string>();
  const errors: FieldError[] = [];
  const warnings: FieldError[] = [];
  const ids = new Set<string>();
  // An unknown column is named once, at the first row that has it, not once a row.
  const unknown = new Set<string>();
  for (const { row, fields } of rows) {
    const path = `/rows/${row}`;
    const before = errors.length;
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === 'string' && value.length > MAX_CELL) errors.push({ path: `${path}/${name}`, message: `is longer than ${MAX_CELL} characters` });
      if (typeof value === 'string' && FORMULA.test(value) && value.length > 1) warnings.push({ path: `${path}/${name}`, message: `starts with "${JSON.stringify(value[0]).slice(1, -1)}", which a spreadsheet runs as a formula; kept verbatim as text` });
      // Named once, at the first row that has it: an import never drops what a row holds in silence.
      if (!KNOWN.has(name) && !unknown.has(name)) {
        unknown.add(name);
        errors.push({ path: `${path}/${name}`, message: `is not a column this import reads (${[...KNOWN].join(', ')})` });
      }
    }
    const input = fields.input;
    if (typeof input !== 'string' || !input.trim()) errors.push({ path: `${path}/input`, message: 'is required (the text the agent is asked)' });
    const id = fields.id === undefined || fields.id === '' ? `row-${row}` : String(fields.id);
    if (!TASK_ID.test(id)) errors.push({ path: `${path}/id`, message: 'must be letters, digits, ".", "_" or "-" (at most 128)' });
    else if (ids.has(id)) errors.push({ path: `${path}/id`, message: `"${id}" is used by an earlier row` });
    ids.add(id);
    const expected = expectedOf(fields, path, errors);
    const structured = structuredOf(fields, path, errors);
    let refs = metricsOf(fields.metrics, `${path}/metrics`, errors);
    if (refs.length === 0 && fields.metrics !== undefined && fields.metrics !== '' && errors.length === before) errors.push({ path: `${path}/metrics`, message: 'names no metric' });
    if (refs.length === 0 && expected) refs = [{ id: 'task_success' }];
    // Declared checks run their metrics (core/domain/implied-metrics.ts): a row with only those needs no metrics column.
    const checks = impliedMetricIds({ id, input: '', metrics: [], ...structured });
    if (refs.length === 0 && checks.length) refs = checks.map((check) => ({ id: check }));
    if (refs.length === 0 && errors.length === before) errors.push({ path: `${path}/metrics`, message: 'is required when the row has no expected answer and no declared check' });
    refs.forEach((ref, index) => {
      const metric = metrics.get(ref.id);
      if (!metric) errors.push({ path: `${path}/metrics/${index}`, message: `unknown metric "${ref.id}"` });
      else if (metric.params) errors.push(...check(metric.params, ref.params ?? {}, `${path}/metrics/${index}/params`));
    });
    for (const tag of tagsOf(fields.tags)) tags.add(tag);
    if (errors.length === before) {
      tasks.push({ id, input: input as string, ...(expected ? { expected } : {}), ...structured, metrics: refs, provenance: { input: 'import' } });
      rowOf.push(row);
    }
  }
  return { tasks, rowOf, tags: [...tags].sort(), errors, warnings };
}
