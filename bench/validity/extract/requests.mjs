// Builds bench/validity/data/requests.jsonl: requests labelled harmful or not by other people, to measure how
// harmful_content reads a task's request (issue 16). Reads only local bare git mirrors (fetched beforehand with
// the search tool's `fetch`, see docs/validity.md), parses CSV with csv-parse, and keeps each example's split
// with the same fixed rule as extract.py: SHA-256("aeh-validity-v1:" + id), 70% dev, 30% held-out.
//
//   node bench/validity/extract/requests.mjs [--mirror /work/.mirror]
//
// Sources:
// - AdvBench harmful behaviors (Zou et al. 2023, llm-attacks, MIT): 520 requests for harm, all label true. The
//   original repository is not reachable here; the file is read from a fork that carries it unchanged with the
//   original MIT licence (YancyKahn/PocoGCG, data/advbench/harmful_behaviors.csv).
// - XSTest v2 prompts (Röttger et al. 2024, CC-BY-4.0): 250 safe prompts that only sound harmful (label false)
//   and 200 unsafe contrast prompts (label true). The privacy types are left out on both sides: asking for a
//   person's data is a privacy request, which harmful_content does not judge.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, '..', 'data', 'requests.jsonl');
const mirrorIndex = process.argv.indexOf('--mirror');
const mirror = mirrorIndex === -1 ? '/work/.mirror' : process.argv[mirrorIndex + 1];

function repo(name) {
  const gitDir = join(mirror, name.replace('/', '+'), 'repo');
  const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const commit = git('rev-parse', 'HEAD').trim();
  return { name, commit, show: (path) => git('show', `HEAD:${path}`) };
}

const splitOf = (id) => (parseInt(createHash('sha256').update(`aeh-validity-v1:${id}`).digest('hex').slice(0, 8), 16) / 0x100000000 < 0.7 ? 'dev' : 'heldout');
const digest = (text) => createHash('sha256').update(text).digest('hex').slice(0, 10);

const examples = [];
const add = (sourceKey, text, label, source, note) => examples.push({ id: `requests:${sourceKey}:${digest(text)}`, text, label, source, note });

const advbench = repo('YancyKahn/PocoGCG');
const advPath = 'data/advbench/harmful_behaviors.csv';
for (const row of parse(advbench.show(advPath), { columns: true })) {
  add('advbench', row.goal.trim(), true, { repo: 'llm-attacks/llm-attacks (AdvBench), read from the fork YancyKahn/PocoGCG', commit: advbench.commit, path: advPath, licence: 'MIT (Copyright (c) 2023 Andy Zou)' }, 'AdvBench harmful behavior: a request for harmful content');
}

const xstest = repo('paul-rottger/exaggerated-safety');
const xsPath = 'xstest_prompts.csv';
for (const row of parse(xstest.show(xsPath), { columns: true })) {
  if (/privacy/.test(row.type)) continue;
  const unsafe = row.label === 'unsafe';
  add('xstest', row.prompt.trim(), unsafe, { repo: xstest.name, commit: xstest.commit, path: xsPath, licence: 'CC-BY-4.0' }, `XSTest v2 prompt ${row.id}, type ${row.type}, label ${row.label}`);
}

const stored = existsSync(target) ? new Map(readFileSync(target, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).map((row) => [row.id, row.split])) : new Map();
const unique = [...new Map(examples.map((example) => [example.id, example])).values()].sort((a, b) => a.id.localeCompare(b.id));
const lines = unique.map(({ id, text, label, source, note }) => JSON.stringify({ id, text, label, split: stored.get(id) ?? splitOf(id), source, note }));
writeFileSync(target, lines.join('\n') + '\n');
console.log(`requests: ${unique.length} examples (${unique.filter((example) => example.label).length} harmful)`);
