/**
 * Reading a dataset: JSONL (one JSON object per line) or CSV (a header row, then one row per test case; parsed
 * by csv-parse: quotes, embedded newlines, a byte order mark). Every problem is reported with its row number
 * (data rows count from 1, the header not included) rather than stopping at the first.
 */
// The browser build carries its own Buffer: the plain one needs Node's at load, which edge runtimes (workerd) lack.
import { parse } from 'csv-parse/browser/esm/sync';
import { Problem, type FieldError } from '../../core/problems.ts';
import { JsonDepthError, parseWithinDepth } from '../../core/guards/json-depth.ts';

export { decodeUtf8 } from './utf8.ts';

/** The most test cases one import may hold. */
export const MAX_ROWS = 10_000;
/** The longest cell, in characters. */
export const MAX_CELL = 100_000;
/** The most columns (CSV header names, keys of a JSONL object): the import reads eight; a few more are notes. */
export const MAX_COLUMNS = 64;

export type DatasetFormat = 'csv' | 'jsonl';

/** One row: its 1-based number and its fields (CSV cells are strings; JSONL values keep their JSON type). */
export interface DatasetRow {
  row: number;
  fields: Record<string, unknown>;
}

function tooMany(count: number): Problem {
  return new Problem('validation_failed', { detail: `the dataset has ${count} rows or more; an import may have ${MAX_ROWS}`, errors: [{ path: '/rows', message: `more than ${MAX_ROWS} rows` }] });
}

function parseJsonl(text: string, errors: FieldError[]): DatasetRow[] {
  const rows: DatasetRow[] = [];
  let row = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    row++;
    if (row > MAX_ROWS) throw tooMany(row);
    let value: unknown;
    try {
      value = parseWithinDepth(line);
    } catch (error) {
      errors.push(error instanceof JsonDepthError
        ? { path: `/rows/${row}${error.path}`, message: `nests deeper than ${error.limit} levels here` }
        : { path: `/rows/${row}`, message: 'is not a JSON object (one object per line)' });
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) errors.push({ path: `/rows/${row}`, message: 'is not a JSON object' });
    else if (Object.keys(value).length > MAX_COLUMNS) errors.push({ path: `/rows/${row}`, message: `has ${Object.keys(value).length} keys; a row may have ${MAX_COLUMNS}` });
    else rows.push({ row, fields: value as Record<string, unknown> });
  }
  return rows;
}

function parseCsv(text: string, errors: FieldError[]): DatasetRow[] {
  let records: string[][];
  try {
    // Line ends named, not discovered: csv-parse's discovery costs three buffers a character until the first line
    // ends, which made a 0.7 MB header line take seconds.
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_CELL * 4, to: MAX_ROWS + 2, record_delimiter: ['\r\n', '\n', '\r'] });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new Problem('validation_failed', { detail: `the CSV cannot be read${line ? ` (line ${line})` : ''}: ${(error as Error).message.slice(0, 200)}`, errors: [{ path: line ? `/lines/${line}` : '/', message: 'malformed CSV' }] });
  }
  if (records.length - 1 > MAX_ROWS) throw tooMany(records.length - 1);
  const [header, ...body] = records;
  if (!header) throw new Problem('validation_failed', { detail: 'the CSV is empty; it needs a header row (input, expected, metrics, tags)', errors: [{ path: '/rows', message: 'no header row' }] });
  if (header.length > MAX_COLUMNS) throw new Problem('validation_failed', { detail: `the header has ${header.length} columns; an import may have ${MAX_COLUMNS}`, errors: [{ path: '/header', message: `more than ${MAX_COLUMNS} columns` }] });
  const columns = header.map((name) => name.trim().toLowerCase());
  // One pass with a set: finding each name's first index again was quadratic in the header's width.
  const seen = new Set<string>();
  const duplicate = columns.find((name) => {
    if (seen.has(name)) return true;
    seen.add(name);
    return false;
  });
  if (duplicate) throw new Problem('validation_failed', { detail: `the header names column "${duplicate.slice(0, 40)}" twice`, errors: [{ path: '/header', message: `"${duplicate.slice(0, 40)}" twice` }] });
  const rows: DatasetRow[] = [];
  body.forEach((cells, index) => {
    const row = index + 1;
    if (cells.length !== columns.length) {
      errors.push({ path: `/rows/${row}`, message: `has ${cells.length} cells; the header has ${columns.length}` });
      return;
    }
    rows.push({ row, fields: Object.fromEntries(columns.map((name, column) => [name, cells[column]])) });
  });
  return rows;
}

/** Parses a dataset into rows; row errors (bad JSON, ragged rows) are added to `errors`, the rest throw. */
export function parseDataset(text: string, format: DatasetFormat, errors: FieldError[]): DatasetRow[] {
  const rows = format === 'csv' ? parseCsv(text, errors) : parseJsonl(text.replace(/^\uFEFF/, ''), errors);
  if (rows.length === 0 && errors.length === 0) throw new Problem('validation_failed', { detail: 'the dataset holds no test cases', errors: [{ path: '/rows', message: 'no rows' }] });
  return rows;
}
