#!/usr/bin/env node
// Why plugins/storage/fs-hash.ts reads a file it hashes in 64 KiB slices: CPU time of SHA3-256 (node:crypto) over a
// file read with readSync in slices of 16 KiB .. 2 MiB, beside the bare hash of the same bytes already in memory
// (the baseline bench/verify.mjs compares the verify route with). Rounds alternate the cases.
// Usage: node bench/hash-slices.mjs [--bytes 1048576] [--rounds 5] [--n 200]
import { createHash, randomFillSync } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argument, fmt } from './lib.mjs';

const bytes = Number(argument('bytes', String(1 << 20)));
const rounds = Number(argument('rounds', '5'));
const n = Number(argument('n', '200'));
const dir = mkdtempSync(join(tmpdir(), 'aeh-hash-slices-'));
const path = join(dir, 'trace');
const data = randomFillSync(Buffer.alloc(bytes));
writeFileSync(path, data);

const bare = () => createHash('sha3-256').update(data).digest();
const sliced = (size, bufferSize = size) => {
  const buffer = Buffer.allocUnsafe(bufferSize);
  return () => {
    const hash = createHash('sha3-256');
    const fd = openSync(path, 'r');
    let read;
    while ((read = readSync(fd, buffer, 0, size, null)) > 0) hash.update(buffer.subarray(0, read));
    closeSync(fd);
    return hash.digest();
  };
};
const cases = { bare, '16 KiB': sliced(16 << 10), '64 KiB': sliced(64 << 10), '256 KiB': sliced(256 << 10), '2 MiB': sliced(2 << 20), '64 KiB into a 2 MiB buffer': sliced(64 << 10, 2 << 20) };
const totals = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(cases)) {
    for (let i = 0; i < 10; i++) run();
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) run();
    const used = process.cpuUsage(start);
    totals[name].push((used.user + used.system) / n);
  }
}
rmSync(dir, { recursive: true, force: true });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(totals.bare);
console.log(`| read slice | CPU µs per ${fmt(bytes)} bytes (median of ${rounds}) | x bare hash |`);
console.log('|---|---:|---:|');
for (const name of Object.keys(cases)) console.log(`| ${name} | ${fmt(Math.round(median(totals[name])))} | ${(median(totals[name]) / base).toFixed(2)} |`);
