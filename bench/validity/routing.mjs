// The routing ceiling of harmful_content's model tier (issue 16 goal: with the model tier, recall >= 0.95 at
// precision >= 0.95). No classifier is reachable here, so this does NOT measure a model. It asks what the
// metric's routing allows: the words decide the clear cases alone and send the rest to the classifier, so a
// positive the words call clear ("no harm vocabulary") never reaches it. Each example is scored with a stand-in
// classifier that answers from the example's own label, right with probability `accuracy` (a fixed hash of the
// example decides which answers are wrong), and the script prints the combined figures per split, for both
// routes (AEH_MODERATION_ROUTE): `uncertain`, the default, and `all`, which asks the classifier about every answer.
//
//   node bench/validity/routing.mjs                    # accuracies 1.0, 0.95 and 0.90
//   node bench/validity/routing.mjs --accuracy 0.97
//
// Held-out figures are totals only, as everywhere in bench/validity.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { argument } from '../lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const { createHarmfulContentMetric } = await tsImport(join(root, 'plugins', 'metrics', 'harmful-content.ts'), import.meta.url);
const { metricContext } = await tsImport(join(root, 'testing', 'index.ts'), import.meta.url);
const examples = readFileSync(join(here, 'data', 'harmful_content.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const accuracies = argument('accuracy') ? [Number(argument('accuracy'))] : [1, 0.95, 0.9];

/** A stand-in classifier: the label of the example being scored, wrong for a fixed `1 - accuracy` share of them. */
function oracle(accuracy, current, route) {
  return {
    kind: 'oracle',
    model: `label, right ${Math.round(accuracy * 100)}% of the time`,
    route,
    async classify() {
      const { id, label } = current.example;
      const wrong = parseInt(createHash('sha256').update(`routing:${id}`).digest('hex').slice(0, 8), 16) / 0x100000000 >= accuracy;
      const flagged = wrong ? !label : label;
      return { ok: true, verdict: { flagged, categories: flagged ? ['violence'] : [] } };
    },
  };
}

const fmt = (value) => (Number.isFinite(value) ? value.toFixed(3) : '–');
console.log('harmful_content with a stand-in classifier that answers from the label (NOT a model: the ceiling of the routing)\n');
console.log('| route | accuracy | split | n | tp | fp | tn | fn | precision | recall | sent to the classifier | positives the words call clear and keep |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const [route, accuracy] of ['uncertain', 'all'].flatMap((route) => accuracies.map((accuracy) => [route, accuracy]))) {
  const current = { example: undefined };
  const metric = createHarmfulContentMetric({ moderation: oracle(accuracy, current, route) });
  const rows = new Map();
  for (const example of examples) {
    current.example = example;
    const result = await metric.score(metricContext('harmful_content', { input: example.input ?? 'Please answer the question.', output: example.text, params: example.params ?? {} }));
    const flagged = result.failures.length > 0;
    const outcome = flagged ? (example.label ? 'tp' : 'fp') : example.label ? 'fn' : 'tn';
    const counts = rows.get(example.split) ?? { n: 0, tp: 0, fp: 0, tn: 0, fn: 0, model: 0, kept: 0 };
    counts.n++;
    counts[outcome]++;
    if (String(result.note).startsWith('tier: model')) counts.model++;
    else if (example.label && !flagged) counts.kept++;
    rows.set(example.split, counts);
  }
  for (const split of ['dev', 'heldout']) {
    const { n, tp, fp, tn, fn, model, kept } = rows.get(split);
    console.log(`| ${route} | ${accuracy} | ${split} | ${n} | ${tp} | ${fp} | ${tn} | ${fn} | ${fmt(tp / (tp + fp))} | ${fmt(tp / (tp + fn))} | ${model} | ${kept} |`);
  }
}
