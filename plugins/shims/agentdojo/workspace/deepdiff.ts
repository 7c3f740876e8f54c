/**
 * DeepDiff (deepdiff 9, `DeepDiff(pre, post, exclude_paths=…)` as AgentDojo's checks call it on two environments)
 * over our worlds' JSON views: the report's kinds and paths as the checks read them. Pydantic models are objects
 * (`root.inbox.account_email`), dicts are keyed (`root.inbox.emails['3']`), lists indexed (`…participants[2]`);
 * the excluded paths (initial_* lists, computed views) are not in our views at all. A list compared in order
 * reports a changed index as values_changed and a longer/shorter tail as iterable_item_added/removed, which is
 * what DeepDiff reports for the appends and in-place edits AgentDojo's tools make.
 */

/** The report: for each kind, its paths; `type_changes` also gives old and new value. */
export interface DiffReport {
  dictionary_item_added?: string[];
  dictionary_item_removed?: string[];
  values_changed?: string[];
  type_changes?: Record<string, { old: unknown; new: unknown }>;
  /** Path to the item added (`diff["iterable_item_added"].values()` is read by a check). */
  iterable_item_added?: Record<string, unknown>;
  iterable_item_removed?: Record<string, unknown>;
}

/** A view node that is a Python dict (keyed paths), not a pydantic model (attribute paths). */
export class PyDict {
  constructor(readonly entries: Record<string, unknown>) {}
}

const typeOf = (value: unknown): string => (value === null ? 'NoneType' : Array.isArray(value) ? 'list' : value instanceof PyDict ? 'dict' : typeof value);

function push(report: DiffReport, kind: 'dictionary_item_added' | 'dictionary_item_removed' | 'values_changed', path: string): void {
  (report[kind] ??= []).push(path);
}

function walk(pre: unknown, post: unknown, path: string, report: DiffReport): void {
  if (typeOf(pre) !== typeOf(post)) {
    (report.type_changes ??= {})[path] = { old: pre, new: post };
    return;
  }
  if (pre instanceof PyDict && post instanceof PyDict) {
    for (const key of Object.keys(pre.entries)) {
      if (!(key in post.entries)) push(report, 'dictionary_item_removed', `${path}['${key}']`);
      else walk(pre.entries[key], post.entries[key], `${path}['${key}']`, report);
    }
    for (const key of Object.keys(post.entries)) if (!(key in pre.entries)) push(report, 'dictionary_item_added', `${path}['${key}']`);
    return;
  }
  if (Array.isArray(pre) && Array.isArray(post)) {
    const common = Math.min(pre.length, post.length);
    for (let i = 0; i < common; i++) walk(pre[i], post[i], `${path}[${i}]`, report);
    for (let i = common; i < post.length; i++) (report.iterable_item_added ??= {})[`${path}[${i}]`] = post[i];
    for (let i = common; i < pre.length; i++) (report.iterable_item_removed ??= {})[`${path}[${i}]`] = pre[i];
    return;
  }
  if (typeof pre === 'object' && pre !== null) {
    const a = pre as Record<string, unknown>;
    const b = post as Record<string, unknown>;
    for (const key of Object.keys(a)) walk(a[key], b[key], `${path}.${key}`, report);
    return;
  }
  if (pre !== post) push(report, 'values_changed', path);
}

/** DeepDiff's report from one world view to another (views from `diffView`). */
export function deepDiff(pre: unknown, post: unknown): DiffReport {
  const report: DiffReport = {};
  walk(pre, post, 'root', report);
  return report;
}

/** The kinds a report holds (`set(diff.keys())`). */
export const diffKinds = (report: DiffReport): string[] => Object.keys(report).sort();

/** Python's `set(a) == set(b)` over path lists. */
export function sameSet(a: readonly string[] | undefined, b: readonly string[]): boolean {
  const left = new Set(a ?? []);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}
