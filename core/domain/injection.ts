/**
 * Injection vectors in a scenario's world (issue 35; AgentDojo's `injection_vectors.yaml` and its
 * `environment.yaml` placeholders): a string of `initial_state` holds `{{injection:<name>}}` where an attacker's
 * text may be planted, and `injection_vectors.<name>.default` is what it says when no attack runs. A world is
 * always built from the rendered state (world-start.ts), so the agent never sees a placeholder.
 *
 * The syntax cannot occur by accident: double braces, the word `injection`, a colon and a declared name.
 * Rendering is one pass: text put in a vector is never read for placeholders again.
 */
import type { FieldError } from '../problems.ts';
import type { InjectionVector, Scenario } from './scenario.ts';

/** `{{injection:<name>}}`; the name as `injection_vectors` allows it. */
export const INJECTION_PLACEHOLDER = /\{\{injection:([A-Za-z0-9_][A-Za-z0-9_.-]{0,99})\}\}/g;

/** How deep `initial_state` is walked for placeholders (no shim takes deeper states). */
const MAX_DEPTH = 64;

const pointerOf = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every placeholder in `value` with the JSON Pointer of the string that holds it (rooted at `base`). */
export function placeholdersIn(value: unknown, base = ''): Array<{ name: string; path: string }> {
  const found: Array<{ name: string; path: string }> = [];
  const walk = (item: unknown, path: string, depth: number) => {
    if (typeof item === 'string') {
      if (!item.includes('{{injection:')) return;
      for (const match of item.matchAll(INJECTION_PLACEHOLDER)) found.push({ name: match[1]!, path });
    } else if (item && typeof item === 'object' && depth < MAX_DEPTH) {
      if (Array.isArray(item)) item.forEach((entry, index) => walk(entry, `${path}/${index}`, depth + 1));
      else for (const [key, entry] of Object.entries(item)) walk(entry, `${path}/${pointerOf(key)}`, depth + 1);
    }
  };
  walk(value, base, 0);
  return found;
}

/** The vectors `value` (a shim's initial state, or the whole of `initial_state`) holds, in first-seen order. */
export function vectorsIn(value: unknown): string[] {
  return [...new Set(placeholdersIn(value).map((entry) => entry.name))];
}

/**
 * What JSON Schema cannot say about vectors: every placeholder names a declared vector (400 at the string that
 * holds it), every declared vector is used somewhere in `initial_state` (400 at the vector), and injection task
 * ids are unique.
 */
export function injectionRuleErrors(scenario: Scenario): FieldError[] {
  const errors: FieldError[] = [];
  const declared = scenario.injection_vectors ?? {};
  const used = new Set<string>();
  for (const { name, path } of placeholdersIn(scenario.initial_state ?? {}, '/initial_state')) {
    used.add(name);
    if (!Object.hasOwn(declared, name)) errors.push({ path, message: `holds {{injection:${name}}}, but injection_vectors declares no "${name}" (declared: ${Object.keys(declared).join(', ') || 'none'})` });
  }
  for (const name of Object.keys(declared)) {
    if (!used.has(name)) errors.push({ path: `/injection_vectors/${pointerOf(name)}`, message: `no initial_state string holds {{injection:${name}}}: an unused vector would never be attacked` });
  }
  const seen = new Map<string, number>();
  (scenario.injection_tasks ?? []).forEach((task, index) => {
    const first = seen.get(task.id);
    if (first !== undefined) errors.push({ path: `/injection_tasks/${index}/id`, message: `duplicates the id of /injection_tasks/${first}` });
    else seen.set(task.id, index);
  });
  return errors;
}

/** `value` with every placeholder replaced by its vector's text (`values`), in one pass. */
export function renderInjections<T>(value: T, values: Readonly<Record<string, string>>, depth = 0): T {
  if (typeof value === 'string') {
    if (!value.includes('{{injection:')) return value;
    return value.replace(INJECTION_PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole)) as T;
  }
  if (!value || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const rendered = renderInjections(item, values, depth + 1);
      changed ||= rendered !== item;
      return rendered;
    });
    return (changed ? items : value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, entry] of Object.entries(value)) {
    const rendered = renderInjections(entry, values, depth + 1);
    if (rendered !== entry) (copy ??= { ...(value as Record<string, unknown>) })[key] = rendered;
  }
  return (copy ?? value) as T;
}

/** Each vector's text in a scenario: its `default` (an attacked copy's defaults hold the attack). */
export function vectorTexts(vectors: Readonly<Record<string, InjectionVector>> | undefined): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [name, vector] of Object.entries(vectors ?? {})) texts[name] = vector.default;
  return texts;
}

const rendered = new WeakMap<Scenario, Map<string, unknown>>();

/** Shim `name`'s initial state with the scenario's vectors rendered (kept per scenario object). */
export function initialStateOf(scenario: Scenario, name: string): unknown {
  const raw = scenario.initial_state?.[name];
  if (raw === undefined || !scenario.injection_vectors) return raw;
  let byShim = rendered.get(scenario);
  if (!byShim) rendered.set(scenario, (byShim = new Map()));
  if (!byShim.has(name)) byShim.set(name, renderInjections(raw, vectorTexts(scenario.injection_vectors)));
  return byShim.get(name);
}

/** A copy of `scenario` whose vectors in `texts` say those texts (the others keep their defaults). */
export function withVectorTexts(scenario: Scenario, texts: Readonly<Record<string, string>>): Scenario {
  const vectors: Record<string, InjectionVector> = { ...scenario.injection_vectors };
  for (const [name, text] of Object.entries(texts)) vectors[name] = { ...vectors[name], default: text };
  return { ...scenario, injection_vectors: vectors };
}

/** AgentDojo's canary for a vector (`<CANARY---name--->`): what placement looks for in the gold's tool results. */
export function canaryOf(name: string): string {
  return `<CANARY---${name}--->`;
}
