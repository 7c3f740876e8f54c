/**
 * Issue 33 item 4: deep JSON is a 400 naming the path, never a 500. A 90 KB body nesting 5,000–15,000 levels
 * passed validation and overflowed the stack later (an inline scenario's `initial_state`, a scripted agent's
 * `replies`, a dataset's `expected_actions` cell). One depth limit holds where JSON enters: bodies, files, CSV
 * cells and JSON Lines.
 */
import { describe, it, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp } from '../helpers.ts';
import { MAX_JSON_DEPTH, pruneDeep, textDepth, tooDeepPath } from '../../core/guards/json-depth.ts';

/** `{"a":{"a":…1…}}` nested `depth` levels, as text. */
const deepText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function scenarioText(id: string, inject: { initialState?: string; replies?: string }) {
  const agent = inject.replies ? `{"adapter":"scripted","replies":${inject.replies}}` : '{"adapter":"scripted","replies":{"*":{"output":"ok"}}}';
  const initial = inject.initialState ? `,"enabled_shims":["kv"],"initial_state":{"kv":{"entries":${inject.initialState}}}` : '';
  return `{"id":"${id}","title":"Deep","industry":"Retail","use_case":"Support","tags":["hostile"],"policy_ref":"NIST AI 100-1","agent":${agent},"topology":[{"agent":"A","writes":["r"],"reads":["t"]}],"tasks":[{"id":"t","input":"hi","expected":{"contains":"ok"}}]${initial}}`;
}

describe('hostile: deep JSON where it enters', () => {
  it('refuses an inline scenario whose initial_state nests 10,000 levels: 400 naming the path', async () => {
    const t = await testApp();
    const response = await t.request('POST', '/api/evaluate', { raw: `{"scenario":${scenarioText('deep-state', { initialState: deepText(10_000) })}}`, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors[0].path).toMatch(/^\/scenario\/initial_state\/kv\/entries(\/a)+$/);
    expect(body.errors[0].message).toBe(`nests deeper than ${MAX_JSON_DEPTH} levels here`);
  });

  it('refuses a scripted agent whose replies nest 15,000 levels', async () => {
    const t = await testApp();
    const response = await t.request('POST', '/api/evaluate', { raw: `{"scenario":${scenarioText('deep-replies', { replies: `{"*":${deepText(15_000)}}` })}}`, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].path).toMatch(/^\/scenario\/agent\/replies\/\*(\/a)+$/);
  });

  it('refuses a dataset cell and a JSON Lines row nested past the limit, naming the row', async () => {
    const t = await testApp();
    const csv = `id,input,expected_actions\nrow1,hello,"${`[${deepText(5_000)}]`.replaceAll('"', '""')}"\n`;
    const fromCsv = await t.request('POST', '/api/v1/datasets/import', { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(fromCsv.status).toBe(400);
    const csvBody = await fromCsv.json();
    expect(JSON.stringify(csvBody.errors)).toMatch(/"path":"\/rows\/1\/expected_actions\/0(\/a)+","message":"nests deeper than 128 levels here"/);
    const jsonl = `{"id":"r1","input":"hi","expected":"x","metrics":"refusal","expected_outcome":[${deepText(5_000)}]}\n`;
    const fromJsonl = await t.request('POST', '/api/v1/datasets/import', { raw: jsonl, headers: { 'content-type': 'application/x-ndjson' } });
    expect(fromJsonl.status).toBe(400);
    expect(JSON.stringify(await fromJsonl.json())).toContain('nests deeper than 128 levels here');
  });

  it('refuses a scenario file nested past the limit, naming the path', async () => {
    const t = await testApp();
    writeFileSync(join(t.root, 'deep.json'), scenarioText('deep-file', { initialState: deepText(8_000) }));
    const response = await t.json('POST', '/api/evaluate', { body: { path: 'deep.json' } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toMatch(/^\/initial_state\/kv\/entries(\/a)+$/);
  });

  it('accepts nesting up to the limit and measures depth without recursion', () => {
    expect(textDepth(deepText(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    expect(textDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(textDepth('{"a":"\\"[["}')).toBe(1);
    // A quote after an even run of backslashes closes the string; after an odd run it is part of it.
    expect(textDepth('{"a":"\\\\","b":[[1]]}')).toBe(3);
    expect(textDepth('{"a":"\\\\\\"[[","b":[1]}')).toBe(2);
    expect(textDepth('["unterminated [[[')).toBe(1);
    expect(tooDeepPath(JSON.parse(deepText(MAX_JSON_DEPTH)))).toBeUndefined();
    const deep = JSON.parse(deepText(50_000));
    expect(tooDeepPath(deep)).toBe(`/a`.repeat(MAX_JSON_DEPTH));
    expect(textDepth(JSON.stringify(pruneDeep(deep)))).toBe(MAX_JSON_DEPTH);
  });
});
