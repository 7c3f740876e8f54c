import { readFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';
const { readClaim } = await tsImport('/work/wt/egress/plugins/metrics/shared/claims.ts', import.meta.url);
const rows = readFileSync('/work/wt/egress/bench/validity/data/claim_check.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.split === 'dev');
const c = { tp: 0, fp: 0, tn: 0, fn: 0, un: 0 };
const errs = [];
const readings = {};
for (const r of rows) {
  const read = readClaim(r.text);
  readings[read.reading] = (readings[read.reading] ?? 0) + 1;
  if (read.reading === 'mixed') { c.un++; errs.push(['MIXED', r.label, r.text.slice(0, 240), read.claim?.slice(0,100), read.pending?.slice(0,100)]); continue; }
  const pred = read.reading === 'claims';
  const k = pred ? (r.label ? 'tp' : 'fp') : r.label ? 'fn' : 'tn';
  c[k]++;
  if (k === 'fp' || k === 'fn') errs.push([k, r.label, r.text.slice(0, 300), read.reading, read.claim?.slice(0, 100), read.pending?.slice(0, 100)]);
}
console.log(c, readings, 'P', (c.tp / (c.tp + c.fp)).toFixed(3), 'R', (c.tp / (c.tp + c.fn)).toFixed(3));
if (process.argv[2]) for (const e of errs) console.log(JSON.stringify(e));
