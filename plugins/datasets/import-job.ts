/**
 * Reading a dataset as one job: parsing (parse.ts) and mapping its rows to tasks (rows.ts), with every row's
 * problems. The import route runs it in the offload pool, under `AEH_DATASET_BUDGET_MS`, when the dataset is
 * large, so a costly file holds a worker, never the service; a small one is read on the spot.
 */
import type { FieldError } from '../../core/problems.ts';
import type { JsonSchema } from '../../core/validate.ts';
import { parseDataset, type DatasetFormat } from './parse.ts';
import { mapRows, type MappedRows } from './rows.ts';

/** URL of this module, for `Offload.run`. */
export const IMPORT_JOB_MODULE = import.meta.url;

/** What the route sends the worker: the text, and each loaded metric's params schema (null: none). */
export interface ImportJob {
  text: string;
  format: DatasetFormat;
  metricParams: Record<string, JsonSchema | null>;
}

/** The tasks, the errors of every row (parsing and mapping) and the warnings. */
export interface ImportedRows {
  errors: FieldError[];
  mapped: MappedRows;
}

/** Reads a dataset; a problem with the whole file (not UTF-8 rows, too many rows, a bad header) is thrown. */
export function importRows(job: ImportJob): ImportedRows {
  const errors: FieldError[] = [];
  const rows = parseDataset(job.text, job.format, errors);
  const mapped = mapRows(rows, {
    get: (id) => (Object.hasOwn(job.metricParams, id) ? { params: job.metricParams[id] ?? undefined } : undefined),
  });
  return { errors: [...errors, ...mapped.errors], mapped };
}
