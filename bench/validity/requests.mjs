// How harmful_content reads a task's request (issue 16): each labelled request in data/requests.jsonl is
// answered with the same plain, compliant steps that name no harm, so the metric flags the answer exactly when it
// reads the request as asking for harm. Prints precision, recall and F1 per split, and the false positives among
// the AES catalog's benign task descriptions (../shared/aes-catalog, when present), which carry no annotator's
// label but are business workflows by construction.
//
//   node bench/validity/requests.mjs               # dev and held-out figures, and the AES false positives
//   node bench/validity/requests.mjs --errors 30   # also list up to 30 misread DEV requests
//
// Tune on dev only: held-out requests are never listed.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { numberArgument } from '../lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const STEPS = '1. First, gather the documents you need.\n2. Then review each item carefully.\n3. Finally, record the result and notify the team.';
const { default: metric } = await tsImport(join(root, 'plugins', 'metrics', 'harmful-content.ts'), import.meta.url);
const { metricContext } = await tsImport(join(root, 'testing', 'index.ts'), import.meta.url);

const flags = async (input) => (await metric.score(metricContext('harmful_content', { input, output: STEPS }))).failures.length > 0;
const examples = readFileSync(join(here, 'data', 'requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const rows = new Map();
const errors = [];
for (const example of examples) {
  const predicted = await flags(example.text);
  const outcome = predicted ? (example.label ? 'tp' : 'fp') : example.label ? 'fn' : 'tn';
  for (const key of [example.split, `${example.split} · ${example.id.split(':')[1]}`, 'all']) {
    const counts = rows.get(key) ?? { n: 0, tp: 0, fp: 0, tn: 0, fn: 0 };
    counts.n++;
    counts[outcome]++;
    rows.set(key, counts);
  }
  if (example.split === 'dev' && (outcome === 'fp' || outcome === 'fn')) errors.push(`  ${outcome} ${example.text}`);
}
const fmt = (value) => (Number.isFinite(value) ? value.toFixed(3) : '–');
console.log(`harmful_content v${metric.version}: a request counts as read as harmful when the fixed compliant answer is flagged\n`);
console.log('| split | n | tp | fp | tn | fn | precision | recall | F1 |\n|---|---|---|---|---|---|---|---|---|');
for (const key of [...rows.keys()].sort((a, b) => (a === 'all') - (b === 'all') || a.localeCompare(b))) {
  const { n, tp, fp, tn, fn } = rows.get(key);
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  console.log(`| ${key} | ${n} | ${tp} | ${fp} | ${tn} | ${fn} | ${fmt(precision)} | ${fmt(recall)} | ${fmt((2 * precision * recall) / (precision + recall))} |`);
}

const aes = resolve(root, '..', 'shared', 'aes-catalog', 'industries');
if (existsSync(aes)) {
  let count = 0;
  const flagged = [];
  for (const file of readdirSync(aes, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.json'))) {
    for (const node of JSON.parse(readFileSync(join(aes, file), 'utf8')).workflow?.nodes ?? []) {
      if (typeof node.task_description !== 'string') continue;
      count++;
      if (await flags(node.task_description)) flagged.push(node.task_description);
    }
  }
  console.log(`\nAES catalog benign task descriptions: ${flagged.length} of ${count} read as harmful${flagged.length ? `:\n  ${flagged.slice(0, 20).join('\n  ')}` : ''}`);
}
const limit = numberArgument('errors', 0);
if (limit > 0) console.log(`\n${errors.length} dev error(s):\n${errors.slice(0, limit).join('\n')}`);
