// Detector validity (issue 16 item 1; claim_check: issue 32 item 3): runs each text-judging metric over the labelled examples in
// bench/validity/data/<metric>.jsonl, exactly as the engine calls it (`metric.score(context)` with a one-task
// scenario, its input and output trace events), and prints precision, recall, F1 and the confusion counts
// per metric and split. Unmeasured results (`score: null`, or a thrown error, which the engine records as
// unmeasured) are counted apart and left out of tp/fp/tn/fn.
//
//   node bench/validity/run.mjs                  # dev and held-out, every metric
//   node bench/validity/run.mjs --by-source      # also one row per source
//   node bench/validity/run.mjs --errors 20      # list up to 20 misclassified DEV examples per metric
//   node bench/validity/run.mjs --json out.json  # also write the figures as JSON
//   node bench/validity/run.mjs --by-certainty   # refusal and harmful_content: one row per certainty the words gave
//                                                # (clear, lean, undecided), and "clear only": the figures if only clear
//                                                # verdicts decided and the rest were unmeasured
//   AEH_MODERATION_KIND=… node bench/validity/run.mjs --moderation
//                                                # refusal and harmful_content with their model tier, configured by the
//                                                # same AEH_MODERATION_* (and AEH_LLM_*) settings as the service: combined figures
//   node bench/validity/run.mjs --root DIR [--code-label TEXT]
//                                                # score with the metrics of another tree (e.g. a `git archive` of a commit)
//
// The held-out split is for reporting only: tune detectors on dev, and never list held-out errors.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { tsImport } from 'tsx/esm/api';

const here = dirname(fileURLToPath(import.meta.url));
const ownRoot = join(here, '..', '..');

/**
 * Per metric: the module that defines it and which outcome counts as "positive" for the labels.
 * Every metric but refusal: positive = the result has failures (the metric flags the text).
 * refusal: the labels mark refusals, and the metric (expect "refuse", its default) passes with no failures
 * exactly when it recognises a clean refusal, so positive = no failures.
 */
const METRICS = [
  { id: 'refusal', file: 'refusal.ts', positive: (result) => result.failures.length === 0, meaning: 'the text is a clean refusal' },
  { id: 'harmful_content', file: 'harmful-content.ts', positive: flagged, meaning: 'the text is harmful' },
  { id: 'pii_leak', file: 'pii-leak.ts', positive: flagged, meaning: 'the text discloses personal data' },
  { id: 'prompt_injection', file: 'prompt-injection.ts', positive: flagged, meaning: 'the output shows an injection was followed' },
  { id: 'secret_leak', file: 'secret-leak.ts', positive: flagged, meaning: 'the text contains a credential' },
  { id: 'ai_disclosure', file: 'ai-disclosure.ts', positive: flagged, meaning: 'the answer fails to disclose or claims to be human' },
  { id: 'claim_check', file: 'claim-check.ts', positive: flagged, meaning: 'the answer claims a required write was done that never succeeded' },
];

function flagged(result) {
  return result.failures.length > 0;
}

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1] ?? true;
};
const bySource = args.includes('--by-source');
const byCertainty = args.includes('--by-certainty');
const errorLimit = Number(option('--errors') ?? 0);
const jsonOut = option('--json');
const repoRoot = typeof option('--root') === 'string' ? option('--root') : ownRoot;
const withModeration = args.includes('--moderation');

/**
 * The model tier the AEH_MODERATION_* settings configure, as the metrics plugin builds it (docs/metrics.md,
 * "The model tier"); the bench calls out with the global fetch. Exits naming the setting when none is configured.
 */
async function moderationTier() {
  const { moderationFromSettings } = await tsImport(join(repoRoot, 'plugins', 'metrics', 'shared', 'moderation.ts'), import.meta.url);
  const env = process.env;
  const settings = Object.fromEntries(['AEH_MODERATION_KIND', 'AEH_MODERATION_URL', 'AEH_MODERATION_MODEL', 'AEH_MODERATION_API_KEY', 'AEH_MODERATION_TIMEOUT_MS', 'AEH_MODERATION_ROUTE']
    .filter((name) => env[name]?.trim())
    .map((name) => [name, name.endsWith('_MS') ? Number(env[name]) : env[name].trim()]));
  const tier = moderationFromSettings(settings, { baseUrl: env.AEH_LLM_BASE_URL, apiKey: env.AEH_LLM_API_KEY }, () => fetch);
  if (!tier) {
    console.error('--moderation needs AEH_MODERATION_KIND (openai-moderation or llama-guard) and its URL and model: see docs/metrics.md, "The model tier"');
    process.exit(2);
  }
  return tier;
}
const moderation = withModeration ? await moderationTier() : undefined;
/** With --moderation, the two metrics that have a model tier are built with it. */
const FACTORIES = { refusal: 'createRefusalMetric', harmful_content: 'createHarmfulContentMetric' };

/**
 * The certainty the words gave a result of refusal or harmful_content, read from its note: every deterministic
 * note ends its reading with "(clear)", "(lean)" or "(undecided)". A note without one (a model-tier verdict,
 * a turn the check does not judge) is "other".
 */
function certaintyOf(note) {
  return /\((clear|lean|undecided)\)/.exec(note)?.[1] ?? (note.startsWith('tier: deterministic') ? 'lean' : 'other');
}

/**
 * claim_check's context: the failed calls (`calls`, each a required write of a world whose writes they are) as
 * tool_call events with their error, between the request and the answer, as the engine records them.
 */
function claimContext(example, base) {
  const shim = example.id.split(':')[1].replace(/[^a-z0-9]/g, '_');
  const names = example.calls.map((call) => `${shim}.${call.name}`);
  const ts = '2026-01-01T00:00:00.000Z';
  const calls = example.calls.map((call, index) => ({ seq: 2 + index, type: 'tool_call', ts, run_id: 'run-1', task_id: 't1', data: { name: names[index], arguments: {}, error: { code: 'error', message: call.error } } }));
  const answer = { seq: 2 + calls.length, type: 'agent_output', ts, run_id: 'run-1', task_id: 't1', data: { output: example.text } };
  const task = { ...base.task, required_tools: names };
  return { ...base, task, scenario: { ...base.scenario, tasks: [task] }, events: [...base.events.slice(0, 2), ...calls, answer], outputEvent: answer.seq, world: { initial: {}, final: {}, writes: names } };
}

/** The context the engine builds for one task (see testing/metric.ts and plugins/evaluation). */
function contextFor(metricId, example) {
  if (metricId === 'claim_check') return claimContext(example, plainContext(metricId, example));
  return plainContext(metricId, example);
}

function plainContext(metricId, example) {
  const input = example.input ?? 'Please answer the question.';
  const output = example.text;
  const params = example.params ?? {};
  const task = { id: 't1', input, metrics: [{ id: metricId, params }] };
  const scenario = {
    id: 'validity', title: 'Detector validity', industry: 'test', use_case: 'validity', tags: [], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted' }, topology: [], tasks: [task],
  };
  const ts = '2026-01-01T00:00:00.000Z';
  const events = [
    { seq: 0, type: 'run_start', ts, run_id: 'run-1', data: {} },
    { seq: 1, type: 'input', ts, run_id: 'run-1', task_id: 't1', data: { input } },
    { seq: 2, type: 'agent_output', ts, run_id: 'run-1', task_id: 't1', data: { output } },
  ];
  return { scenario, task, ref: task.metrics[0], params, output, outputEvent: 2, events, latencyMs: 120 };
}

function emptyCounts() {
  return { n: 0, tp: 0, fp: 0, tn: 0, fn: 0, unmeasured: 0 };
}

function rates(counts) {
  const precision = counts.tp + counts.fp ? counts.tp / (counts.tp + counts.fp) : null;
  const recall = counts.tp + counts.fn ? counts.tp / (counts.tp + counts.fn) : null;
  const f1 = precision !== null && recall !== null && precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : precision === 0 || recall === 0 ? 0 : null;
  return { precision, recall, f1 };
}

const fmt = (value) => (value === null ? '–' : value.toFixed(3));

function sourceKey(example) {
  return example.id.split(':')[1].replace(/-v2-\d+$/, '').replace(/^(xstest-[a-z]+)-.*/, '$1');
}

function gitState(file) {
  if (repoRoot !== ownRoot) return typeof option('--code-label') === 'string' ? option('--code-label') : `the tree at ${repoRoot}`;
  try {
    const dirty = execFileSync('git', ['status', '--porcelain', '--', file], { cwd: repoRoot }).toString().trim();
    const commit = execFileSync('git', ['log', '-1', '--format=%h', '--', file], { cwd: repoRoot }).toString().trim();
    return `${commit}${dirty ? ' + uncommitted changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

const report = { date: new Date().toISOString(), metrics: {} };
const lines = [];
const print = (line = '') => {
  lines.push(line);
  console.log(line);
};

print('| metric | split | n | tp | fp | tn | fn | unmeasured | precision | recall | F1 |');
print('|---|---|---|---|---|---|---|---|---|---|---|');

const errorBlocks = [];
for (const spec of METRICS) {
  const metricFile = join('plugins', 'metrics', spec.file);
  const module = await tsImport(join(repoRoot, metricFile), import.meta.url);
  const metric = moderation && FACTORIES[spec.id] ? module[FACTORIES[spec.id]]({ moderation }) : module.default;
  const tiers = { deterministic: 0, model: 0, model_unavailable: 0 };
  const examples = readFileSync(join(here, 'data', `${spec.id}.jsonl`), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  for (const example of examples) {
    const valid = typeof example.id === 'string' && typeof example.text === 'string' && typeof example.label === 'boolean' && ['dev', 'heldout'].includes(example.split) && example.source?.repo && example.source?.licence;
    if (!valid) throw new Error(`${spec.id}.jsonl: malformed example ${JSON.stringify(example).slice(0, 120)}`);
  }
  const groups = new Map();
  const bump = (key, outcome) => {
    if (!groups.has(key)) groups.set(key, emptyCounts());
    const counts = groups.get(key);
    counts.n += 1;
    counts[outcome] += 1;
  };
  const errors = [];
  // Task inputs (prompts) seen in dev: XSTest has two models' answers to each prompt, and the split is by
  // example, so a held-out answer may reply to a prompt a dev answer also replies to. Metrics that read the
  // request were written looking at dev prompts; "heldout (prompts unseen in dev)" leaves those out.
  const devInputs = new Set(examples.filter((example) => example.split === 'dev' && example.input).map((example) => example.input));
  const started = performance.now();
  for (const example of examples) {
    let result;
    try {
      result = await metric.score(contextFor(spec.id, example));
    } catch (error) {
      result = { score: null, failures: [], note: `threw: ${error?.message ?? error}` };
    }
    const note = String(result.note ?? '');
    if (note.startsWith('tier: model')) tiers.model += 1;
    else if (note.startsWith('tier: deterministic')) tiers.deterministic += 1;
    if (/the model tier \([^)]*\) (?:timed out|could not|is rate-limited|answered)/.test(note)) tiers.model_unavailable += 1;
    let outcome;
    if (result.score === null) outcome = 'unmeasured';
    else {
      const predicted = spec.positive(result);
      outcome = predicted ? (example.label ? 'tp' : 'fp') : example.label ? 'fn' : 'tn';
      if ((outcome === 'fp' || outcome === 'fn') && example.split === 'dev') errors.push({ outcome, example, codes: result.failures.map((failure) => failure.code), certainty: byCertainty && FACTORIES[spec.id] ? certaintyOf(note) : undefined });
    }
    for (const split of [example.split, 'all']) {
      bump(`${split}`, outcome);
      if (spec.id === 'secret_leak' && example.in_scope !== false) bump(`${split} (documented kinds)`, outcome);
      if (split === 'heldout' && example.input && devInputs.size && !devInputs.has(example.input)) bump('heldout (prompts unseen in dev)', outcome);
      if (bySource) bump(`${split} · ${sourceKey(example)}`, outcome);
      if (byCertainty && FACTORIES[spec.id] && split !== 'all') {
        const certainty = certaintyOf(note);
        bump(`${split} · ${certainty}`, outcome);
        bump(`${split} · clear only`, certainty === 'clear' ? outcome : 'unmeasured');
      }
    }
  }
  const elapsedMs = performance.now() - started;
  report.metrics[spec.id] = { module: metricFile, version: metric.version, code: gitState(metricFile), positive_means: spec.meaning, elapsed_ms: Math.round(elapsedMs), rows: {} };
  if (FACTORIES[spec.id]) report.metrics[spec.id].tiers = { ...tiers, classifier: moderation ? `${moderation.kind} ${moderation.model}` : 'none (deterministic only)' };
  const order = [...groups.keys()].sort((a, b) => {
    const rank = (key) => (key.startsWith('dev') ? 0 : key.startsWith('heldout') ? 1 : 2);
    return rank(a) - rank(b) || a.length - b.length || a.localeCompare(b);
  });
  for (const key of order) {
    const counts = groups.get(key);
    const { precision, recall, f1 } = rates(counts);
    report.metrics[spec.id].rows[key] = { ...counts, precision, recall, f1 };
    print(`| ${spec.id} | ${key} | ${counts.n} | ${counts.tp} | ${counts.fp} | ${counts.tn} | ${counts.fn} | ${counts.unmeasured} | ${fmt(precision)} | ${fmt(recall)} | ${fmt(f1)} |`);
  }
  if (errorLimit > 0 && errors.length) {
    errorBlocks.push(`\n${spec.id}: ${errors.length} dev error(s) (positive = ${spec.meaning})`);
    for (const { outcome, example, codes, certainty } of errors.slice(0, errorLimit)) {
      errorBlocks.push(`  ${outcome}${certainty ? ` (${certainty})` : ''} ${example.id} ${codes.join(',') || '-'} :: ${JSON.stringify(example.text.slice(0, 160))}${example.input ? ` <- ${JSON.stringify(example.input.slice(0, 80))}` : ''}`);
    }
  }
}

print();
for (const [id, info] of Object.entries(report.metrics)) {
  const tiers = info.tiers ? `; decided by tier: deterministic ${info.tiers.deterministic}, model ${info.tiers.model} (classifier: ${info.tiers.classifier}; unavailable ${info.tiers.model_unavailable} times)` : '';
  print(`${id}: positive = ${info.positive_means}; ${info.module} v${info.version} at ${info.code}; ${info.elapsed_ms} ms${tiers}`);
}
for (const line of errorBlocks) console.log(line);
if (typeof jsonOut === 'string') writeFileSync(jsonOut, JSON.stringify(report, null, 2) + '\n');
